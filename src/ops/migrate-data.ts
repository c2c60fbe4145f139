import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { dataDirHolder, DataDirBusyError, lockDataDir } from "../db/lock.ts";
import { assertNotNewer, migrate } from "../db/migrate.ts";
import { describeStore } from "../db/open.ts";
import { openPostgresStore } from "../db/postgres.ts";
import { openSqliteStore } from "../db/sqlite.ts";
import type { DB } from "../db/store.ts";
import { tablesInForeignKeyOrder, type TableShape } from "../schema/table-order.ts";
import { decryptCredentials } from "../modules/sessions/credentials.ts";
import { openSecret } from "../modules/webhooks/signing.ts";
import { clearTable, copyTable, countRows } from "./copy-table.ts";

/** A refusal or a failed move; `exitCode` 2 when nothing was tried (a running server, a target with data), 1 otherwise. */
export class MigrateDataError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
  ) {
    super(message);
  }
}

export interface CopiedTable {
  table: string;
  /** rows in the data dir's database, and in PostgreSQL after the copy */
  source: number;
  target: number;
  /** rows written that the SQLite file does not hold (the secrets of secrets.json) */
  added: number;
  ms: number;
}

export interface MigrateDataReport {
  dataDir: string;
  /** the PostgreSQL URL without its password */
  target: string;
  sourceMigrations: number;
  targetMigrations: number;
  /** rows a start of Parley left in a target without workspaces (seeded plans, its own secrets), replaced */
  cleared: { table: string; rows: number }[];
  tables: CopiedTable[];
  rows: number;
  ms: number;
  /** the target database's LC_COLLATE: "C" orders text as SQLite does */
  collation: string;
  /** folders of the data dir the database rows point into, which stay on disk: media/, imports/ */
  stayOnDisk: { path: string; files: number }[];
}

export interface MigrateDataOptions {
  dataDir: string;
  databaseUrl: string;
  /** rows per INSERT (default 1,000) */
  batchRows?: number;
  /** called as each table is copied and counted */
  onTable?: (t: CopiedTable) => void;
}

const SECRET_NAMES = ["jwtSecret", "credentialKey"] as const;
type FileSecrets = Record<(typeof SECRET_NAMES)[number], string>;

/**
 * `parley migrate-data`: copies every row of a data dir's SQLite database into an empty
 * PostgreSQL database, in one PostgreSQL transaction (a failure leaves the target as it was),
 * with the data dir's secrets.json written into `instance_secrets` so that issued tokens and
 * sealed credentials keep working. Holds the data dir's lock throughout, so no server starts
 * on it meanwhile; the SQLite file is migrated first if it is older, never if it is newer.
 */
export async function migrateData(o: MigrateDataOptions): Promise<MigrateDataReport> {
  const started = performance.now();
  const dataDir = resolve(o.dataDir);
  const target = describeStore({ dataDir, databaseUrl: o.databaseUrl });
  const file = join(dataDir, "parley.db");
  if (!existsSync(file)) throw new MigrateDataError(`no database at ${file}: --from names a data dir, the folder holding parley.db`);
  const holder = dataDirHolder(dataDir);
  if (holder !== null) throw new MigrateDataError(`a Parley server (pid ${holder}) is using ${dataDir}: stop it, then run migrate-data again; nothing was copied`);
  let release: () => void;
  try {
    release = lockDataDir(dataDir);
  } catch (err) {
    if (err instanceof DataDirBusyError) throw new MigrateDataError(`${err.message}: stop it, then run migrate-data again; nothing was copied`);
    throw err;
  }
  try {
    const secrets = readSecrets(dataDir);
    const src = openSqliteStore(file).db;
    try {
      await assertNotNewer(src);
      const sourceMigrations = await migrate(src);
      const tables = tablesInForeignKeyOrder();
      await assertKnownTables(src, tables);
      await assertSecretsOpenSealedValues(src, secrets, dataDir);
      // one connection: the copy is one transaction, and the check for other nodes counts every other one
      const pg = openPostgresStore(o.databaseUrl, { max: 1 }).db;
      try {
        const targetMigrations = await reachable(target, () => migrate(pg));
        const copied = await src.tx(() => pg.tx(() => copyAll(src, pg, tables, secrets, o, target)));
        // fresh statistics for the planner's first queries (autovacuum would take a while); the copy is committed whatever happens here
        await pg.exec("ANALYZE").catch(() => {});
        const collation = (await pg.prepare<{ c: string }>("SELECT datcollate AS c FROM pg_database WHERE datname = current_database()").get())?.c ?? "";
        return {
          dataDir,
          target,
          sourceMigrations,
          targetMigrations,
          ...copied,
          ms: performance.now() - started,
          collation,
          stayOnDisk: ["media", "imports"].filter((d) => existsSync(join(dataDir, d))).map((d) => ({ path: join(dataDir, d), files: countFiles(join(dataDir, d)) })),
        };
      } finally {
        await pg.close();
      }
    } finally {
      await src.close();
    }
  } finally {
    release();
  }
}

async function copyAll(src: DB, pg: DB, tables: TableShape[], secrets: FileSecrets, o: MigrateDataOptions, target: string) {
  const others = await pg.prepare<{ n: number }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'parley' AND pid <> pg_backend_pid()",
  ).get();
  if (Number(others?.n) > 0) {
    throw new MigrateDataError(`${others!.n} other Parley connection(s) use ${target}: stop the servers started on it, then run migrate-data again; nothing was copied`);
  }
  const workspaces = await countRows(pg, "workspaces");
  if (workspaces > 0) {
    throw new MigrateDataError(
      `${target} already holds data (${workspaces} workspace(s)): migrate-data copies into an empty database only, and copied nothing. ` +
        `To start over, drop the database and create it again (DROP DATABASE name; CREATE DATABASE name TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';)`,
    );
  }
  // without a workspace the target holds only what a start of Parley writes by itself: replaced
  const cleared: { table: string; rows: number }[] = [];
  for (const t of [...tables].reverse()) {
    const rows = await clearTable(pg, t.name);
    if (rows) cleared.unshift({ table: t.name, rows });
  }

  const batchRows = o.batchRows ?? 1_000;
  const copied: CopiedTable[] = [];
  let total = 0;
  for (const t of tables) {
    const began = performance.now();
    const isSecrets = t.name === "instance_secrets";
    let written: number;
    try {
      written = await copyTable(src, pg, t, batchRows, isSecrets ? (row) => !(SECRET_NAMES as readonly unknown[]).includes(row.name) : undefined);
    } catch (err) {
      // a value PostgreSQL refuses (SQLite keeps any value in any column): say where
      throw new MigrateDataError(`copying ${t.name} failed: ${(err as Error).message}; the transaction was rolled back and the target holds nothing of this run`, 1);
    }
    let added = 0;
    if (isSecrets) {
      const insert = pg.prepare("INSERT INTO instance_secrets (name, value, created_at) VALUES (?, ?, ?)");
      for (const name of SECRET_NAMES) await insert.run(name, secrets[name], Date.now());
      const inFile = await src.prepare<{ n: number }>(`SELECT count(*) AS n FROM instance_secrets WHERE name IN ('jwtSecret', 'credentialKey')`).get();
      added = SECRET_NAMES.length - Number(inFile?.n ?? 0);
    }
    const source = await countRows(src, t.name);
    const targetRows = await countRows(pg, t.name);
    const entry = { table: t.name, source, target: targetRows, added, ms: performance.now() - began };
    if (written + (isSecrets ? SECRET_NAMES.length : 0) !== targetRows || source + added !== targetRows) {
      throw new MigrateDataError(
        `verification failed for ${t.name}: ${source} row(s) in the data dir, ${written} copied, ${targetRows} in PostgreSQL; the transaction was rolled back and the target holds nothing of this run`,
        1,
      );
    }
    copied.push(entry);
    total += written;
    o.onTable?.(entry);
  }
  return { cleared, tables: copied, rows: total };
}

/** The data dir's secrets.json: without it the sealed credentials cannot be opened and every token dies. */
function readSecrets(dataDir: string): FileSecrets {
  const path = join(dataDir, "secrets.json");
  let parsed: Partial<FileSecrets>;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<FileSecrets>;
  } catch (err) {
    throw new MigrateDataError(
      `cannot read ${path} (${(err as Error).message}): it holds the keys of the installation's tokens and sealed credentials, which must move too; restore it from a backup of this data dir`,
    );
  }
  for (const name of SECRET_NAMES) {
    if (typeof parsed[name] !== "string" || !parsed[name]) throw new MigrateDataError(`${path} has no ${name}: restore the file from a backup of this data dir`);
  }
  return parsed as FileSecrets;
}

/**
 * SQLite's own search indexes (FTS5 tables and their shadow tables): the messages' words, and the
 * trigrams and the grams (single characters and pairs) of conversations' phones and contacts'
 * names for the inbox's contact search; and the numbers the grams' triggers count with. Made from the rows, so nothing of them is copied; PostgreSQL indexes
 * the copied text itself (its own gram tables are filled by triggers as the rows arrive).
 */
const FTS_SHADOWS = ["", "_data", "_idx", "_docsize", "_config", "_content"];
const DERIVED_TABLES = [
  ...["messages_fts", "conversations_phone_q", "contacts_name_q", "conversations_phone_g", "contacts_name_g"].flatMap((t) => FTS_SHADOWS.map((s) => t + s)),
  "q_positions",
  // how far the messages' words index has followed the messages
  "messages_fts_mark",
  // kept by triggers on contacts, rebuilt there as the contacts are copied
  "contact_counts",
];

/** A table of the data dir's database that this build's schema lacks would be left behind: refused. */
async function assertKnownTables(src: DB, tables: TableShape[]): Promise<void> {
  const known = new Set([...tables.map((t) => t.name), ...DERIVED_TABLES]);
  const present = await src
    .prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '__drizzle_migrations'")
    .all();
  const unknown = present.map((r) => r.name).filter((n) => !known.has(n));
  if (unknown.length) throw new MigrateDataError(`the data dir's database has table(s) this build does not copy: ${unknown.join(", ")}; nothing was copied`, 1);
}

/** A secrets.json from elsewhere would be copied without complaint and break every sealed value: one of each kind is opened first. */
async function assertSecretsOpenSealedValues(src: DB, secrets: FileSecrets, dataDir: string): Promise<void> {
  const webhook = await src.prepare<{ v: string }>("SELECT secret_enc AS v FROM webhooks LIMIT 1").get();
  const session = await src.prepare<{ id: string; v: string }>("SELECT id, credentials AS v FROM chat_sessions WHERE credentials IS NOT NULL LIMIT 1").get();
  try {
    if (webhook) openSecret(webhook.v, secrets.credentialKey);
    if (session) decryptCredentials(secrets.credentialKey, session.id, session.v);
  } catch {
    throw new MigrateDataError(
      `the credentialKey of ${join(dataDir, "secrets.json")} does not open the sealed ${webhook ? "webhook secrets" : "session credentials"} of its database: it is not this installation's secrets.json; nothing was copied`,
    );
  }
}

/** Runs the first statement on PostgreSQL, turning "cannot connect" into one line that says what to do. */
async function reachable<T>(target: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== "string") throw err;
    const message = (err as Error).message;
    if (code === "3D000") {
      throw new MigrateDataError(`${target}: ${message}; create it first: CREATE DATABASE name TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';`, 1);
    }
    // the server's refusals of the connection (08: connection, 28: authorisation), or no server at all (ECONNREFUSED, CONNECT_TIMEOUT, ...)
    if (!(err instanceof postgres.PostgresError) || code.startsWith("08") || code.startsWith("28")) {
      throw new MigrateDataError(`cannot use ${target}: ${message || code}`, 1);
    }
    throw err;
  }
}

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) n += countFiles(join(dir, entry.name));
    else n++;
  }
  return n;
}
