import type { Database } from "bun:sqlite";
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

const COLS = `id, workspace_id AS workspaceId, status, file_path AS filePath, filename, total, processed, created, updated, rejected, error,
  created_at AS createdAt, completed_at AS completedAt`;

/** Records a new import (status queued). */
export function insertImport(sqlite: Database, workspaceId: string, row: { id: string; filePath: string; filename: string | null; at: number }): void {
  sqlite
    .query("INSERT INTO contact_imports (id, workspace_id, status, file_path, filename, created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?)")
    .run(row.id, workspaceId, row.filePath, row.filename, row.at, row.at);
}

/** One import of the workspace. */
export function findImport(sqlite: Database, workspaceId: string, id: string): ImportRowState | null {
  return sqlite.query(`SELECT ${COLS} FROM contact_imports WHERE workspace_id = ? AND id = ?`).get(workspaceId, id) as ImportRowState | null;
}

/** The kept errors of an import, by row. */
export function importErrors(sqlite: Database, importId: string): { row: number; message: string }[] {
  return sqlite.query("SELECT row, message FROM contact_import_errors WHERE import_id = ? ORDER BY row").all(importId) as { row: number; message: string }[];
}

/** How many errors are kept so far. */
export function countImportErrors(sqlite: Database, importId: string): number {
  return (sqlite.query("SELECT count(*) AS n FROM contact_import_errors WHERE import_id = ?").get(importId) as { n: number }).n;
}

/** Marks the import running and stores its row count (once known). */
export function startImport(sqlite: Database, workspaceId: string, id: string, total: number, at: number): void {
  sqlite.query("UPDATE contact_imports SET status = 'running', total = ?, updated_at = ? WHERE workspace_id = ? AND id = ?").run(total, at, workspaceId, id);
}

/** Adds one batch's counts and errors; call in the batch's transaction. */
export function recordBatch(
  sqlite: Database,
  workspaceId: string,
  id: string,
  b: { processed: number; created: number; updated: number; rejected: number; errors: { row: number; message: string }[] },
  at: number,
): void {
  sqlite
    .query(
      `UPDATE contact_imports SET processed = processed + ?, created = created + ?, updated = updated + ?, rejected = rejected + ?, updated_at = ?
       WHERE workspace_id = ? AND id = ?`,
    )
    .run(b.processed, b.created, b.updated, b.rejected, at, workspaceId, id);
  const insert = sqlite.query("INSERT OR IGNORE INTO contact_import_errors (import_id, row, message) VALUES (?, ?, ?)");
  for (const e of b.errors) insert.run(id, e.row, e.message);
}

/** Ends the import: completed, or failed with the reason. */
export function finishImport(sqlite: Database, workspaceId: string, id: string, outcome: { status: "completed" | "failed"; error?: string }, at: number): void {
  sqlite
    .query("UPDATE contact_imports SET status = ?, error = ?, completed_at = ?, updated_at = ? WHERE workspace_id = ? AND id = ?")
    .run(outcome.status, outcome.error ?? null, at, at, workspaceId, id);
}
