import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { embeddedMigrations, embeddedMigrationTimes, embeddedPostgresMigrations } from "./migrations.macro.ts" with { type: "macro" };
import type { DB, Engine } from "./store.ts";

/**
 * Run from source (this file a `.ts` with the migrations folder of its tree; in a compiled
 * binary it is a bundled chunk), the migrations are read from their files, not from what the
 * macro inlined: Bun keeps the transpiled form of a large file in a cache keyed by that file's
 * own text, so after a migration is added the cached copy of this one would still carry the old
 * list.
 */
const SOURCE_MIGRATIONS = join(import.meta.dir, "..", "..", "migrations");
const FROM_SOURCE = import.meta.path.endsWith(".ts") && existsSync(join(SOURCE_MIGRATIONS, "sqlite", "meta", "_journal.json"));

/** The timestamps of the migrations this build ships, per engine: all a start on an up-to-date database reads. */
const TIMES: Record<Engine, number[]> = FROM_SOURCE
  ? { sqlite: journalTimes("sqlite"), postgres: journalTimes("postgres") }
  : embeddedMigrationTimes();
/** The migrations themselves (their SQL, a few hundred KB of literals): made only when some are applied. */
const EMBEDDED: Record<Engine, () => MigrationMeta[]> = {
  sqlite: () => embeddedMigrations() as unknown as MigrationMeta[],
  postgres: () => embeddedPostgresMigrations() as unknown as MigrationMeta[],
};

/** A folder's migrations' timestamps, from its journal (as drizzle's readMigrationFiles reads them). */
function journalTimes(engine: Engine): number[] {
  const journal = JSON.parse(readFileSync(join(SOURCE_MIGRATIONS, engine, "meta", "_journal.json"), "utf8")) as { entries: { when: number }[] };
  return journal.entries.map((e) => e.when);
}

/** The engine's migrations with their SQL: from the files when run from source, else the embedded ones. */
async function migrationsOf(engine: Engine): Promise<MigrationMeta[]> {
  if (!FROM_SOURCE) return EMBEDDED[engine]();
  const { readMigrationFiles } = await import("drizzle-orm/migrator");
  return readMigrationFiles({ migrationsFolder: join(SOURCE_MIGRATIONS, engine) });
}
const TABLE = "__drizzle_migrations";

/** The database was migrated by a build this one does not know (newer, or another branch): running on it could corrupt it. */
export class NewerDatabaseError extends Error {}

/**
 * Applies the embedded migrations of the store's engine that the database lacks, in one
 * transaction, and returns how many. The transaction takes the write lock first, so processes
 * that start together (nodes on one PostgreSQL) migrate once: the others wait, then find
 * nothing to do. Refuses (NewerDatabaseError) a database that holds a migration this build
 * does not ship: the code would run against a schema it does not know. The bookkeeping is
 * drizzle-kit's own table (`__drizzle_migrations`: hash, created_at = the migration's
 * timestamp), so databases migrated by earlier builds carry on.
 */
export async function migrate(db: DB): Promise<number> {
  const times = TIMES[db.engine];
  // every start but the first after an upgrade: nothing to do, and no transaction for it (two
  // reads: the bookkeeping table exists, its timestamps; the SQL of the migrations is not made)
  if (await hasTable(db)) {
    const applied = await appliedTimes(db);
    if (applied.includes(Math.max(...times))) {
      refuseUnknown(applied, times);
      return 0;
    }
  }
  const migrations = await migrationsOf(db.engine);
  return db.tx(async () => {
    await db.exec(
      db.engine === "postgres"
        ? `CREATE TABLE IF NOT EXISTS ${TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`
        : `CREATE TABLE IF NOT EXISTS ${TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
    );
    await assertNotNewer(db, migrations);
    const applied = new Set(await appliedTimes(db));
    let n = 0;
    for (const m of migrations) {
      if (applied.has(Number(m.folderMillis))) continue;
      for (const statement of m.sql) if (statement.trim()) await db.exec(statement);
      await db.prepare(`INSERT INTO ${TABLE} (hash, created_at) VALUES (?, ?)`).run(m.hash, Number(m.folderMillis));
      n++;
    }
    return n;
  });
}

/** How many migrations ship in this build for the engine. */
export function bundledMigrationCount(engine: Engine = "sqlite"): number {
  return TIMES[engine].length;
}

async function hasTable(db: DB): Promise<boolean> {
  const sql =
    db.engine === "postgres"
      ? // the catalogue directly: information_schema's view checks privileges on every table, and a
        // new backend (every start's first statements) loads a dozen catalogues to plan it (≈1 ms of a start)
        `SELECT 1 AS one WHERE to_regclass(quote_ident(current_schema()) || '.${TABLE}') IS NOT NULL`
      : `SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = '${TABLE}'`;
  return !!(await db.prepare(sql).get());
}

async function appliedTimes(db: DB): Promise<number[]> {
  const rows = await db.prepare<{ at: number | string }>(`SELECT created_at AS at FROM ${TABLE} ORDER BY created_at`).all();
  return rows.map((r) => Number(r.at));
}

/** How many migrations the database has recorded (0 before the first start). */
export async function appliedCount(db: DB): Promise<number> {
  return (await hasTable(db)) ? (await appliedTimes(db)).length : 0;
}

/** Throws when the database has applied migrations (by their drizzle-kit timestamp) that this build does not embed. */
export async function assertNotNewer(db: DB, embedded: readonly Pick<MigrationMeta, "folderMillis">[] = TIMES[db.engine].map((folderMillis) => ({ folderMillis }))): Promise<void> {
  if (!(await hasTable(db))) return;
  refuseUnknown(await appliedTimes(db), embedded.map((m) => Number(m.folderMillis)));
}

/** Throws NewerDatabaseError when `applied` holds timestamps `embedded` lacks. */
function refuseUnknown(applied: readonly number[], embedded: readonly number[]): void {
  const known = new Set(embedded);
  const unknown = applied.filter((at) => !known.has(at));
  if (!unknown.length) return;
  const newest = new Date(Math.max(...unknown)).toISOString();
  throw new NewerDatabaseError(
    `the database was migrated by a newer Parley build (${unknown.length} migration(s) this build does not have, the latest from ${newest}; this build has ${embedded.length}); run that build or a later one, or restore a backup made with this one`,
  );
}
