import { existsSync } from "node:fs";
import { join } from "node:path";
import { systemClock, type Clock } from "../src/clock.ts";
import type { Config } from "../src/config.ts";
import { migrate, NewerDatabaseError } from "../src/db/migrate.ts";
import { assertReachable } from "../src/db/reachable.ts";
import { openStore } from "../src/db/open.ts";
import type { DB } from "../src/db/store.ts";
import { AppError } from "../src/errors.ts";
import { seedPlans } from "../src/modules/billing/plans.ts";
import { isBrokenPipe, writeOut, writeErr } from "../src/node/tty.ts";
import { mark } from "../src/start-mark.ts";
import { commandFinished } from "../src/node/exit.ts";

/*
 * The part of the operator commands' framework (operator.ts) that commands working on the data
 * dir's database alone need: its store, the runner, the table printer. Kept apart from the
 * server-calling part (tokens, the server's URL), so `parley workspaces list` loads none of it.
 */

/** Thrown for anything the operator must read; the command prints it and exits non-zero. */
export class OperatorError extends Error {}

/** What a withDataDir command works with: the data dir's database and a clock. */
export interface OperatorContext {
  config: Config;
  db: DB;
  clock: Clock;
  out: (line: string) => void;
}

/**
 * Opens the data dir's store (`<dataDir>/parley.db`, or PostgreSQL when configured; migrated,
 * catalogue seeded), runs `fn`, closes. Errors the operator can fix print one line and exit 1.
 */
export async function withDataDir(
  configOrPending: Config | Promise<Config>,
  fn: (ctx: OperatorContext) => void | Promise<void>,
  out: (line: string) => void = (l) => void writeOut(l + "\n"),
  { seed = true }: { seed?: boolean } = {},
): Promise<void> {
  const config = await configOrPending;
  // a mistyped --data-dir must not quietly create an empty database beside the real one
  if (!config.databaseUrl && !existsSync(join(config.dataDir, "parley.db"))) throw new OperatorError(noDatabase(config.dataDir));
  mark("data dir: config loaded");
  const db = openStore(config);
  try {
    mark("data dir: store opened");
    await assertReachable(db, config);
    await migrate(db);
    mark("data dir: migrations checked");
    if (seed) {
      await seedPlans(db, systemClock.now().getTime());
      mark("data dir: plans seeded");
    }
    await fn({ config, db, clock: systemClock, out });
  } finally {
    await db.close();
  }
}

/**
 * withDataDir for a command that only reads (`workspaces list`, `users list`): the same store,
 * migrated when it lacks migrations, without seeding the plan catalogue (a transaction of writes
 * such a command never needs).
 */
export function readDataDir(
  config: Config | Promise<Config>,
  fn: (ctx: OperatorContext) => void | Promise<void>,
  out: (line: string) => void = (l) => void writeOut(l + "\n"),
): Promise<void> {
  return withDataDir(config, fn, out, { seed: false });
}

/** The one-line refusal of a data dir without a database. */
export function noDatabase(dataDir: string): string {
  return `no database in ${dataDir}: is --data-dir (or PARLEY_DATA_DIR) the server's data directory? A new one is created by \`parley serve\` or \`parley migrate\``;
}

/** Stores opened by the operator action that runs now: runOperator closes them (a PostgreSQL pool would keep the process alive). */
export const openStores = new Set<DB>();

/**
 * Runs an operator action from commander: an error prints one line, `parley: <message>` (with
 * an AppError's field errors), and exits 1, or 2 for a database from a newer build, which no
 * retry fixes. The stores openOperator opened for it are closed after it.
 */
export async function runOperator(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (isBrokenPipe(err)) process.exit(0); // `| head -1`: the reader has what it wanted
    if (err instanceof Error) {
      const fields = err instanceof AppError && err.errors ? ` (${Object.entries(err.errors).map(([k, v]) => `${k} ${v}`).join(", ")})` : "";
      writeErr(`parley: ${err.message}${fields}\n`);
      process.exit(err instanceof NewerDatabaseError ? 2 : 1);
    }
    throw err;
  } finally {
    const stores = [...openStores];
    openStores.clear();
    await Promise.all(stores.map((db) => db.close()));
  }
  commandFinished(); // its stores are closed: nothing is left for a natural exit to finish
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
