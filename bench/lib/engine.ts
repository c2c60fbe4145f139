// The engine a bench run measures: SQLite (default) or PostgreSQL, chosen by `npm run bench --
// --engine postgres` (bench/run.ts) or PARLEY_BENCH_DATABASE_URL. On PostgreSQL every server the
// bench starts gets a database of its own, made on the server that URL names.
import { SQL } from "bun";

export type Engine = "sqlite" | "postgres";

export const benchEngine = (): Engine =>
  process.env.PARLEY_BENCH_ENGINE === "postgres" || (!process.env.PARLEY_BENCH_ENGINE && process.env.PARLEY_BENCH_DATABASE_URL) ? "postgres" : "sqlite";

/** A fresh, empty database's URL on PostgreSQL; undefined on SQLite. */
export async function engineDatabase(): Promise<string | undefined> {
  if (benchEngine() !== "postgres") return undefined;
  const admin = process.env.PARLEY_BENCH_DATABASE_URL;
  if (!admin) throw new Error("--engine postgres needs PARLEY_BENCH_DATABASE_URL (a server on which the bench may create databases)");
  const name = `parley_bench_${Bun.randomUUIDv7().replace(/-/g, "").slice(-16)}`;
  const sql = new SQL(admin, { max: 1 });
  await sql.unsafe(`CREATE DATABASE ${name}`);
  await sql.close();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return u.toString();
}
