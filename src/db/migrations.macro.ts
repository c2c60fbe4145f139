import { join } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";

/**
 * Bun macro: runs at bundle time, so the compiled binary carries the migrations as data.
 * Import it `with { type: "macro" }`.
 */
export function embeddedMigrations() {
  // resolved from this file, not the working directory of whoever builds or runs
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, "../../migrations") });
}
