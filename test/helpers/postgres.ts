import postgres from "postgres";
import { openStore } from "../../src/db/open.ts";
import { migrate } from "../../src/db/migrate.ts";

/**
 * The PostgreSQL the suite runs on when `PARLEY_TEST_DATABASE_URL` names a server (an admin URL,
 * e.g. postgres://parley@127.0.0.1:55432/postgres; `.ci/run` starts a private one): every test
 * app gets a database of its own, copied from one migrated template, so tests stay isolated and
 * a new database costs one CREATE DATABASE. Unset: the suite runs on SQLite.
 */
export const TEST_PG_URL = process.env.PARLEY_TEST_DATABASE_URL || "";

export const testEngine: "sqlite" | "postgres" = TEST_PG_URL ? "postgres" : "sqlite";

const TEMPLATE = `parley_tpl_${process.pid}`;
let admin: postgres.Sql | undefined;
let template: Promise<void> | undefined;
let counter = 0;

function adminSql(): postgres.Sql {
  admin ??= postgres(TEST_PG_URL, { max: 2, onnotice: () => {} });
  return admin;
}

function urlFor(db: string): string {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${db}`;
  return u.toString();
}

async function ensureTemplate(): Promise<void> {
  template ??= (async () => {
    const sql = adminSql();
    await sql.unsafe(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
    await sql.unsafe(`CREATE DATABASE ${TEMPLATE} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
    const db = openStore({ dataDir: "", databaseUrl: urlFor(TEMPLATE), databasePoolSize: 1 });
    await migrate(db);
    await db.close();
    dropAtExit();
  })();
  return template;
}

const made = new Set<string>();

/** A new, migrated database of its own; returns its URL and a function that drops it. */
export async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  await ensureTemplate();
  const name = `parley_t_${process.pid}_${++counter}`;
  await adminSql().unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  made.add(name);
  return {
    url: urlFor(name),
    async drop() {
      made.delete(name);
      await adminSql().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    },
  };
}

/** A new database with no table at all (created as the docs tell operators to); returns its URL and a function that drops it. */
export async function emptyPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `parley_e_${process.pid}_${++counter}`;
  await adminSql().unsafe(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  made.add(name);
  dropAtExit();
  return {
    url: urlFor(name),
    async drop() {
      made.delete(name);
      await adminSql().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    },
  };
}

let dropping = false;
function dropAtExit(): void {
  if (dropping) return;
  dropping = true;
  process.once("beforeExit", () => void dropAll());
}

async function dropAll(): Promise<void> {
  const sql = adminSql();
  for (const name of made) await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await sql.unsafe(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`).catch(() => {});
  await sql.end({ timeout: 1 });
}
