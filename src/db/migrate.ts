import type { MigrationMeta } from "drizzle-orm/migrator";
import { embeddedMigrations } from "./migrations.macro.ts" with { type: "macro" };
import type { DB } from "./open.ts";

const MIGRATIONS: MigrationMeta[] = embeddedMigrations() as unknown as MigrationMeta[];

/** Applies the embedded drizzle-kit migrations (idempotent). Returns how many were applied. */
export function migrate(db: DB): number {
  const before = appliedCount(db);
  // drizzle's own migrator, fed from embedded data instead of files on disk
  const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown, c: object): void }; session: unknown };
  internals.dialect.migrate(MIGRATIONS, internals.session, {});
  return appliedCount(db) - before;
}

/** How many migrations ship in this build. */
export function bundledMigrationCount(): number {
  return MIGRATIONS.length;
}

function appliedCount(db: DB): number {
  const sqlite = (db as unknown as { $client: import("bun:sqlite").Database }).$client;
  const exists = sqlite.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
  if (!exists) return 0;
  return (sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
}
