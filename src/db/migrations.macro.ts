import { join } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";

/**
 * Bun macros: run at bundle time, so the compiled binary carries the migrations of both
 * engines as data. Import them `with { type: "macro" }`.
 */
export function embeddedMigrations() {
  // resolved from this file, not the working directory of whoever builds or runs
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, "../../migrations/sqlite") });
}

export function embeddedPostgresMigrations() {
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, "../../migrations/postgres") });
}

/** The timestamps of both engines' migrations, oldest first: what a start compares with the database's, without the SQL. */
export function embeddedMigrationTimes() {
  return { sqlite: embeddedMigrations().map((m) => m.folderMillis), postgres: embeddedPostgresMigrations().map((m) => m.folderMillis) };
}
