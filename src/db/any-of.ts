import { sql, type SQL } from "drizzle-orm";
import type { DB } from "./store.ts";

/** Each engine's condition around the JSON array: before the parameter, after it. */
function parts(db: Pick<DB, "engine">): [string, string] {
  return db.engine === "postgres" ? ["= ANY(ARRAY(SELECT jsonb_array_elements_text(", "::jsonb)))"] : ["IN (SELECT value FROM json_each(", "))"];
}

/**
 * The condition `IN` a JSON array of strings given as one `?` parameter, for raw SQL on either
 * engine: `${column} ${anyOf(db)}`. On PostgreSQL `= ANY(ARRAY(SELECT ...))`: its planner reads
 * that as one index probe per element, where `IN (SELECT jsonb_array_elements_text(...))`, the
 * set estimated at 100 rows, was planned as a scan of every row the rest of the condition leaves
 * (a session's messages, a workspace's contacts) hashed against the set: milliseconds at a few
 * thousand rows, and growing with the table.
 */
export function anyOf(db: Pick<DB, "engine">): string {
  const [before, after] = parts(db);
  return `${before}?${after}`;
}

/** The same condition for drizzle's query builder, with `values` bound: sql`${column} ${anyOfSql(db, values)}`. */
export function anyOfSql(db: Pick<DB, "engine">, values: string[]): SQL {
  const [before, after] = parts(db);
  return sql`${sql.raw(before)}${JSON.stringify(values)}${sql.raw(after)}`;
}
