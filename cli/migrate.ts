import type { Command } from "commander";
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { bundledMigrationCount, migrate, NewerDatabaseError } from "../src/db/migrate.ts";
import { openDb } from "../src/db/open.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";

/** `parley migrate`: applies the embedded migrations to the data dir's database. */
export function migrateCommand(program: Command): void {
  program
    .command("migrate")
    .description("apply the embedded database migrations and exit")
    .option(...DATA_DIR_FLAG)
    .action((flags) => {
      const config = configOrExit(flags);
      mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      const opened = openDb(join(config.dataDir, "parley.db"), { synchronous: config.dbSynchronous });
      try {
        const applied = migrate(opened.db);
        process.stdout.write(`applied ${applied} migration(s); ${bundledMigrationCount()} in this build\n`);
      } catch (err) {
        if (!(err instanceof NewerDatabaseError)) throw err;
        process.stderr.write(`parley: ${err.message}\n`);
        process.exitCode = 2;
      } finally {
        opened.close();
      }
    });
}
