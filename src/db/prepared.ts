import type { DB } from "./open.ts";

/**
 * A statement built and prepared once per database, then reused: drizzle otherwise builds
 * the SQL text and asks SQLite to compile it on every call (about half the CPU of a hot
 * request). `build` uses `sql.placeholder(...)` for every value that varies.
 */
export function preparedOnce<T>(build: (db: DB) => T): (db: DB) => T {
  const cache = new WeakMap<DB, T>();
  return (db) => {
    let stmt = cache.get(db);
    if (stmt === undefined) cache.set(db, (stmt = build(db)));
    return stmt;
  };
}
