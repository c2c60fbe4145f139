import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import type { DB } from "./open.ts";

/** The bun:sqlite connection under a drizzle database. */
export function clientOf(db: DB): Database {
  return (db as unknown as { $client: Database }).$client;
}

/**
 * A bun:sqlite statement prepared once per database, answering plain rows: for the hottest
 * reads, where drizzle's row mapping (a closure per column) is a visible part of a request.
 */
export function statementOnce<Row, Params extends SQLQueryBindings[]>(sql: string): (db: DB) => Statement<Row, Params> {
  const cache = new WeakMap<DB, Statement<Row, Params>>();
  return (db) => {
    let stmt = cache.get(db);
    if (!stmt) {
      stmt = clientOf(db).prepare(sql) as unknown as Statement<Row, Params>;
      cache.set(db, stmt);
    }
    return stmt;
  };
}
