import type { MigrationMeta } from "drizzle-orm/migrator";
import { embeddedMigrations } from "./migrations.macro.ts" with { type: "macro" };
import type { DB } from "./open.ts";
import { clientOf } from "./statement.ts";

const MIGRATIONS: MigrationMeta[] = embeddedMigrations() as unknown as MigrationMeta[];
const NEWEST_EMBEDDED = Math.max(...MIGRATIONS.map((m) => Number(m.folderMillis)));

/** The database was migrated by a build this one does not know (newer, or another branch): running on it could corrupt it. */
export class NewerDatabaseError extends Error {}

/**
 * Applies the embedded drizzle-kit migrations (idempotent). Returns how many were applied.
 * Refuses (NewerDatabaseError) a database that holds a migration this build does not ship:
 * drizzle would skip ours silently and the code would run against a schema it does not know.
 */
export function migrate(db: DB): number {
  assertNotNewer(db);
  const before = appliedCount(db);
  // fast path of every start but the first after an upgrade: drizzle applies the migrations
  // newer than the last one recorded, so when the newest embedded one is recorded there is
  // nothing to do (skips its transaction and statements; issue 13)
  if (before && NEWEST_EMBEDDED <= lastApplied(db)) return 0;
  // drizzle's own migrator, fed from embedded data instead of files on disk
  const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown, c: object): void }; session: unknown };
  internals.dialect.migrate(MIGRATIONS, internals.session, {});
  return appliedCount(db) - before;
}

/** How many migrations ship in this build. */
export function bundledMigrationCount(): number {
  return MIGRATIONS.length;
}

type Sqlite = import("bun:sqlite").Database;

function hasMigrationTable(db: DB | Sqlite): boolean {
  return !!clientOf(db).query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
}

function appliedCount(db: DB): number {
  if (!hasMigrationTable(db)) return 0;
  return (clientOf(db).query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
}

/** The drizzle-kit timestamp of the last migration recorded (what drizzle compares with). */
function lastApplied(db: DB): number {
  const row = clientOf(db).query("SELECT created_at AS at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1").get() as { at: number | string } | null;
  return row ? Number(row.at) : -Infinity;
}

/** Throws when the database has applied migrations (by their drizzle-kit timestamp) that this build does not embed. */
export function assertNotNewer(db: DB | Sqlite, embedded: readonly Pick<MigrationMeta, "folderMillis">[] = MIGRATIONS): void {
  if (!hasMigrationTable(db)) return;
  const known = new Set(embedded.map((m) => Number(m.folderMillis)));
  const applied = clientOf(db).query("SELECT created_at AS at FROM __drizzle_migrations ORDER BY created_at").all() as { at: number | string }[];
  const unknown = applied.map((r) => Number(r.at)).filter((at) => !known.has(at));
  if (!unknown.length) return;
  const newest = new Date(Math.max(...unknown)).toISOString();
  throw new NewerDatabaseError(
    `the database was migrated by a newer Parley build (${unknown.length} migration(s) this build does not have, the latest from ${newest}; this build has ${embedded.length}); run that build or a later one, or restore a backup made with this one`,
  );
}
