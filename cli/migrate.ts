import { writeOut, writeErr } from "../src/node/tty.ts";
import type { Command } from "commander";
import { bundledMigrationCount, migrate, NewerDatabaseError } from "../src/db/migrate.ts";
import { assertReachable } from "../src/db/reachable.ts";
import { openStore } from "../src/db/open.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";

/** `parley migrate`: applies the embedded migrations to the data dir's database (or the configured PostgreSQL). */
export function migrateCommand(program: Command): void {
  program
    .command("migrate")
    .description("apply the embedded database migrations and exit")
    .option(...DATA_DIR_FLAG)
    .action(async (flags) => {
      const config = await configOrExit(flags);
      // openStore makes the data dir for a SQLite file
      const db = openStore(config);
      try {
        await assertReachable(db, config);
        const applied = await migrate(db);
        writeOut(`applied ${applied} migration(s); ${bundledMigrationCount(db.engine)} in this build\n`);
      } catch (err) {
        if (!(err instanceof NewerDatabaseError)) throw err;
        writeErr(`parley: ${err.message}\n`);
        process.exitCode = 2;
      } finally {
        await db.close();
      }
    });
}
