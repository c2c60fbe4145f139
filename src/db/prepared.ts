import type { DB } from "./open.ts";

/**
 * `build(key)` made once per key (a database, a connection) and then reused; the cache holds
 * the key weakly, so a closed runtime's statements go with it.
 */
export function oncePer<K extends object, T>(build: (key: K) => T): (key: K) => T {
  const cache = new WeakMap<K, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) cache.set(key, (value = build(key)));
    return value;
  };
}

/**
 * A statement built and prepared once per database, then reused: drizzle otherwise builds
 * the SQL text and asks SQLite to compile it on every call (about half the CPU of a hot
 * request). `build` uses `sql.placeholder(...)` for every value that varies.
 */
export function preparedOnce<T>(build: (db: DB) => T): (db: DB) => T {
  return oncePer(build);
}
