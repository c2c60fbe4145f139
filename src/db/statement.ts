import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import type { DB } from "./open.ts";
import { oncePer } from "./prepared.ts";

/** The bun:sqlite connection under a drizzle database, or the connection itself. */
export function clientOf(db: DB | Database): Database {
  return "$client" in db ? (db as unknown as { $client: Database }).$client : (db as Database);
}

/**
 * A bun:sqlite statement prepared once per database, answering plain rows: for the hottest
 * reads, where drizzle's row mapping (a closure per column) is a visible part of a request.
 */
export function statementOnce<Row, Params extends SQLQueryBindings[]>(sql: string): (db: DB) => Statement<Row, Params> {
  return oncePer((db: DB) => clientOf(db).prepare(sql) as unknown as Statement<Row, Params>);
}
