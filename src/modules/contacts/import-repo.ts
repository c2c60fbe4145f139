import type { DB } from "../../db/store.ts";
import type { ImportView } from "./model.ts";

/** The first rejected rows kept per import (docs/contacts-and-campaigns.md). */
export const MAX_IMPORT_ERRORS = 1000;

export interface ImportRowState {
  id: string;
  workspaceId: string;
  status: ImportView["status"];
  filePath: string;
  filename: string | null;
  total: number | null;
  processed: number;
  created: number;
  updated: number;
  rejected: number;
  error: string | null;
  createdAt: number;
  completedAt: number | null;
}

const COLS = `id, workspace_id AS "workspaceId", status, file_path AS "filePath", filename, total, processed, created, updated, rejected, error,
  created_at AS "createdAt", completed_at AS "completedAt"`;

/** Records a new import (status queued). */
export async function insertImport(db: DB, workspaceId: string, row: { id: string; filePath: string; filename: string | null; at: number }): Promise<void> {
  await db
    .prepare("INSERT INTO contact_imports (id, workspace_id, status, file_path, filename, created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?)")
    .run(row.id, workspaceId, row.filePath, row.filename, row.at, row.at);
}

/** One import of the workspace. */
export async function findImport(db: DB, workspaceId: string, id: string): Promise<ImportRowState | null> {
  return (await db.prepare<ImportRowState>(`SELECT ${COLS} FROM contact_imports WHERE workspace_id = ? AND id = ?`).get(workspaceId, id)) ?? null;
}

/** The kept errors of an import, by row. */
export async function importErrors(db: DB, importId: string): Promise<{ row: number; message: string }[]> {
  return db.prepare<{ row: number; message: string }>('SELECT "row", message FROM contact_import_errors WHERE import_id = ? ORDER BY "row"').all(importId);
}

/** How many errors are kept so far. */
export async function countImportErrors(db: DB, importId: string): Promise<number> {
  return Number((await db.prepare<{ n: number }>("SELECT count(*) AS n FROM contact_import_errors WHERE import_id = ?").get(importId))?.n ?? 0);
}

/** How many data rows of the import are applied (read in a batch's transaction). */
export async function importProcessed(db: DB, workspaceId: string, id: string): Promise<number | null> {
  const r = await db.prepare<{ processed: number }>("SELECT processed FROM contact_imports WHERE workspace_id = ? AND id = ?").get(workspaceId, id);
  return r ? Number(r.processed) : null;
}

/** Marks the import running and stores its row count (once known). */
export async function startImport(db: DB, workspaceId: string, id: string, total: number, at: number): Promise<void> {
  await db.prepare("UPDATE contact_imports SET status = 'running', total = ?, updated_at = ? WHERE workspace_id = ? AND id = ?").run(total, at, workspaceId, id);
}

/** Adds one batch's counts and errors; call in the batch's transaction. */
export async function recordBatch(
  db: DB,
  workspaceId: string,
  id: string,
  b: { processed: number; created: number; updated: number; rejected: number; errors: { row: number; message: string }[] },
  at: number,
): Promise<void> {
  await db
    .prepare(
      `UPDATE contact_imports SET processed = processed + ?, created = created + ?, updated = updated + ?, rejected = rejected + ?, updated_at = ?
       WHERE workspace_id = ? AND id = ?`,
    )
    .run(b.processed, b.created, b.updated, b.rejected, at, workspaceId, id);
  // one statement per batch (a round trip on PostgreSQL); a batch's errors are at most its size
  // and each count of them is prepared once
  if (b.errors.length) {
    const values = b.errors.map(() => "(?, ?, ?)").join(", ");
    await db.prepare(`INSERT INTO contact_import_errors (import_id, "row", message) VALUES ${values} ON CONFLICT DO NOTHING`).run(...b.errors.flatMap((e) => [id, e.row, e.message]));
  }
}

/** Ends the import: completed, or failed with the reason. */
export async function finishImport(db: DB, workspaceId: string, id: string, outcome: { status: "completed" | "failed"; error?: string }, at: number): Promise<void> {
  await db
    .prepare("UPDATE contact_imports SET status = ?, error = ?, completed_at = ?, updated_at = ? WHERE workspace_id = ? AND id = ?")
    .run(outcome.status, outcome.error ?? null, at, at, workspaceId, id);
}
