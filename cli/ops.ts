import { writeOut, writeErr } from "../src/node/tty.ts";
import type { Command } from "commander";
import { announcedUrl } from "../src/db/lock.ts";
import { NewerDatabaseError } from "../src/db/migrate.ts";
import { hostUrl } from "../src/http/public-url.ts";
import { assertSqliteDataDir, backup, BackupError } from "../src/ops/backup.ts";
import { restore } from "../src/ops/restore.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";

/** Prints `parley: <message>` and exits: 2 for a database from a newer build, 1 for the rest the operator must fix. */
function fail(err: unknown): never {
  if (err instanceof BackupError || err instanceof NewerDatabaseError || (err instanceof Error && "code" in err)) {
    writeErr(`parley: ${err.message}\n`);
    process.exit(err instanceof NewerDatabaseError ? 2 : 1);
  }
  throw err;
}

/** `parley backup`, `parley restore` and `parley health` (docs/operations.md). */
export function opsCommands(program: Command): void {
  program
    .command("backup <file>")
    .description("write a consistent backup (database, secrets, media) to a .tar.gz; safe while the server runs")
    .option(...DATA_DIR_FLAG)
    .action(async (file: string, flags: { dataDir?: string }) => {
      const config = await configOrExit({ dataDir: flags.dataDir });
      try {
        assertSqliteDataDir(config, "backup");
        const m = await backup(config.dataDir, file);
        writeOut(`backup written to ${file}: database (${m.migrations} migrations, integrity ok) and ${m.files.length - 1} other entr${m.files.length === 2 ? "y" : "ies"} of ${config.dataDir}\n`);
      } catch (err) {
        fail(err);
      }
    });

  program
    .command("restore <file>")
    .description("restore a backup into an empty data dir (refused while a server uses it)")
    .option(...DATA_DIR_FLAG)
    .action(async (file: string, flags: { dataDir?: string }) => {
      const config = await configOrExit({ dataDir: flags.dataDir });
      try {
        assertSqliteDataDir(config, "restore");
        const m = await restore(file, config.dataDir);
        writeOut(`restored the backup of ${m.createdAt} (Parley ${m.version}) into ${config.dataDir}; start the server with --data-dir ${config.dataDir}\n`);
      } catch (err) {
        fail(err);
      }
    });

  program
    .command("health")
    .description("exit 0 when the server of the data dir answers GET /ready with 200 (container health checks)")
    .option(...DATA_DIR_FLAG)
    .option("--url <url>", "the server to ask (default: the one the data dir announces, else PARLEY_HOST/PARLEY_PORT)")
    .option("--timeout <ms>", "give up after this long", "3000")
    .action(async (flags: { dataDir?: string; url?: string; timeout: string }) => {
      const config = await configOrExit({ dataDir: flags.dataDir });
      const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "::1" : config.host;
      const base = (flags.url ?? announcedUrl(config.dataDir) ?? hostUrl(host, config.port)).replace(/\/+$/, "");
      try {
        const res = await fetch(`${base}/ready`, { signal: AbortSignal.timeout(Number(flags.timeout) || 3000) });
        const body = await res.text();
        writeOut(`${res.status} ${base}/ready ${body.slice(0, 200)}\n`);
        process.exit(res.status === 200 ? 0 : 1);
      } catch (err) {
        writeErr(`parley: GET ${base}/ready failed (${(err as Error).message})\n`);
        process.exit(1);
      }
    });
}
