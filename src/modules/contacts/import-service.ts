import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { IMPORT_JOB } from "./import-job.ts";
import { findImport, importErrors, insertImport } from "./import-repo.ts";
import type { ImportView } from "./model.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "config" | "jobs">;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/**
 * Stores an uploaded CSV under `<dataDir>/imports/` and queues its import job in the same
 * transaction as the import row (the job exists exactly when the import does).
 */
export async function queueImport(deps: Deps, workspaceId: string, file: File): Promise<{ id: string; status: "queued" }> {
  const id = Bun.randomUUIDv7();
  const relative = join("imports", `${id}.csv`);
  const path = join(deps.config.dataDir, relative);
  mkdirSync(join(deps.config.dataDir, "imports"), { recursive: true, mode: 0o700 });
  try {
    // a write cut short (a full disk) leaves no partial file behind
    await Bun.write(path, file);
    await deps.db.tx(async () => {
      await insertImport(deps.db, workspaceId, { id, filePath: relative, filename: file.name?.slice(0, 200) || null, at: deps.clock.now().getTime() });
      await deps.jobs.enqueue(IMPORT_JOB, { workspaceId, importId: id });
    });
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  }
  return { id, status: "queued" };
}

/** An import's progress and report (404 for another workspace's). */
export async function getImport(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): Promise<ImportView> {
  const imp = await findImport(deps.db, workspaceId, id);
  if (!imp) throw errors.notFound("Import");
  return {
    id: imp.id,
    status: imp.status,
    filename: imp.filename,
    total: imp.total,
    processed: imp.processed,
    created: imp.created,
    updated: imp.updated,
    rejected: imp.rejected,
    error: imp.error,
    errors: await importErrors(deps.db, imp.id),
    createdAt: new Date(imp.createdAt).toISOString(),
    completedAt: iso(imp.completedAt),
  };
}
