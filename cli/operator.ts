import { existsSync } from "node:fs";
import { join } from "node:path";
import { systemClock, type Clock } from "../src/clock.ts";
import type { Config } from "../src/config.ts";
import { migrate, NewerDatabaseError } from "../src/db/migrate.ts";
import { openDb, type OpenedDb } from "../src/db/open.ts";
import { AppError } from "../src/errors.ts";
import { seedPlans } from "../src/modules/billing/plans.ts";
import { isBrokenPipe } from "../src/node/tty.ts";

/** What an operator command works with: the data dir's database (D13) and a clock. */
export interface OperatorContext {
  config: Config;
  db: OpenedDb["db"];
  sqlite: OpenedDb["sqlite"];
  clock: Clock;
  out: (line: string) => void;
}

/**
 * Opens `<dataDir>/parley.db` (migrated, catalogue seeded), runs `fn`, closes. Errors the
 * operator can fix print one line and exit 1.
 */
export async function withDataDir(
  config: Config,
  fn: (ctx: OperatorContext) => void | Promise<void>,
  out: (line: string) => void = (l) => void process.stdout.write(l + "\n"),
): Promise<void> {
  const path = join(config.dataDir, "parley.db");
  // a mistyped --data-dir must not quietly create an empty database beside the real one
  if (!existsSync(path)) throw new Error(noDatabase(config.dataDir));
  const opened = openDb(path, { synchronous: config.dbSynchronous });
  try {
    migrate(opened.db);
    seedPlans(opened.sqlite, systemClock.now().getTime());
    await fn({ config, db: opened.db, sqlite: opened.sqlite, clock: systemClock, out });
  } finally {
    opened.close();
  }
}

/** The one-line refusal of a data dir without a database. */
export function noDatabase(dataDir: string): string {
  return `no database in ${dataDir}: is --data-dir (or PARLEY_DATA_DIR) the server's data directory? A new one is created by \`parley serve\` or \`parley migrate\``;
}

/** Runs an operator action from commander: AppError and plain errors become `parley: <message>`, exit 1 (2 for a database from a newer build, which no retry fixes). */
export async function operatorAction(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (isBrokenPipe(err)) process.exit(0); // `| head -1`: the reader has what it wanted
    if (err instanceof AppError || err instanceof Error) {
      const fields = err instanceof AppError && err.errors ? ` (${Object.entries(err.errors).map(([k, v]) => `${k} ${v}`).join(", ")})` : "";
      process.stderr.write(`parley: ${err.message}${fields}\n`);
      process.exit(err instanceof NewerDatabaseError ? 2 : 1);
    }
    throw err;
  }
}

/** Plain-text table with a header row, columns padded to their widest cell. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cell = (v: unknown) => (v === null || v === undefined ? "-" : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join("\n");
}

/** ISO date of a unix-ms time, or null. */
export const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
