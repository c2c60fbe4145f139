import { sql, type SQL } from "drizzle-orm";
import type { DB } from "./store.ts";

type Engine = Pick<DB, "engine">;

/**
 * The condition "among a list of strings" given as one `?` parameter, for raw SQL on either
 * engine: `${column} ${anyOf(db)}`, bound to `anyOfArg(db, values)`.
 *
 * On PostgreSQL `= ANY(?::text[])`, which its planner reads as one index probe per element.
 * Two earlier forms took a JSON array through a set-returning function, which the planner
 * counts as 100 rows: `IN (SELECT jsonb_array_elements_text(...))` was planned as a scan of
 * every row the rest of the condition leaves (a session's messages, a workspace's contacts),
 * hashed against the set; `= ANY(ARRAY(SELECT jsonb_array_elements_text(...)))` probed the
 * index like this one, with the subquery's array in an init plan of its own. A table that has
 * never been analysed (the first minute of a new database, before autovacuum's first pass) can
 * still be planned as a filter over the rows of the condition's other columns, whatever the form.
 * On SQLite `IN (SELECT value FROM json_each(?))`, which its planner probes the index for.
 */
export function anyOf(db: Engine): string {
  return db.engine === "postgres" ? "= ANY(?::text[])" : "IN (SELECT value FROM json_each(?))";
}

/** The parameter of `anyOf`: a PostgreSQL array literal, or a JSON array on SQLite. */
export function anyOfArg(db: Engine, values: readonly string[]): string {
  return db.engine === "postgres" ? pgTextArray(values) : JSON.stringify(values);
}

/** The same condition for drizzle's query builder, with `values` bound: sql`${column} ${anyOfSql(db, values)}`. */
export function anyOfSql(db: Engine, values: readonly string[]): SQL {
  return db.engine === "postgres" ? sql`= ANY(${pgTextArray(values)}::text[])` : sql`IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/** A text[] literal: every element quoted, its quotes and backslashes escaped (so no element reads as NULL, a comma or a brace). */
function pgTextArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
}
