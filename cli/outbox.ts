import { writeOut, writeErr } from "../src/node/tty.ts";
import type { Command } from "commander";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../src/db/migrate.ts";
import { assertReachable } from "../src/db/reachable.ts";
import { openStore } from "../src/db/open.ts";
import { listOutbox } from "../src/notify/outbox.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";
import { noDatabase, OperatorError, runOperator } from "./operator.ts";
import { normalisePhone } from "../src/http/phone.ts";

/** `parley outbox`: the log channel's messages (docs/authentication.md), newest first; works beside a running server. */
export function outboxCommand(program: Command): void {
  program
    .command("outbox")
    .description("list mail and mobile codes of the log channel (the local outbox), newest first")
    .option(...DATA_DIR_FLAG)
    .option("--json", "print a JSON array")
    .option("--to <recipient>", "only messages to this email or phone number")
    .option("-n, --limit <n>", "how many messages", "20")
    .action((flags: { dataDir?: string; json?: boolean; to?: string; limit: string }) => runOperator(async () => {
      const config = await configOrExit({ dataDir: flags.dataDir });
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        writeErr("parley: --limit must be an integer from 1 to 1000\n");
        process.exit(2);
      }
      if (!config.databaseUrl && !existsSync(join(config.dataDir, "parley.db"))) throw new OperatorError(noDatabase(config.dataDir));
      const db = openStore(config);
      try {
        await assertReachable(db, config);
        await migrate(db); // a database from a newer build: runOperator exits 2
        // a phone as people write it (`+91 98000-00001`) matches the stored digits
        const raw = flags.to?.trim().toLowerCase();
        const to = raw && !raw.includes("@") ? normalisePhone(raw) : raw;
        const entries = await listOutbox(db, { to, limit });
        if (flags.json) {
          writeOut(JSON.stringify(entries, null, 2) + "\n");
          return;
        }
        if (!entries.length) writeOut("the outbox is empty\n");
        for (const e of entries) {
          writeOut(`── ${e.createdAt}  ${e.medium} to ${e.to}  (${e.kind})\n`);
          if (e.subject) writeOut(`Subject: ${e.subject}\n`);
          writeOut(`${(e.text ?? "").trimEnd()}\n\n`);
        }
      } finally {
        await db.close();
      }
    }));
}
