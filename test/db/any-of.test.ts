import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { anyOf, anyOfArg, anyOfSql } from "../../src/db/any-of.ts";
import { openPostgresStore } from "../../src/db/postgres.ts";
import { openSqliteStore } from "../../src/db/sqlite.ts";
import type { DB } from "../../src/db/store.ts";
import { emptyPostgres, testEngine } from "../helpers/postgres.ts";

// `anyOf`: a column among a list of strings given as one parameter, on either engine. On
// PostgreSQL the form matters: `IN (SELECT jsonb_array_elements_text(...))` was planned as a
// scan of every row the rest of the condition leaves (the inbound group's repeat check read
// every message of the session), `= ANY(?::text[])` as one index probe per element.

let db: DB;
const drop: (() => Promise<void>)[] = [];
const ROWS = 5_000;

beforeAll(async () => {
  if (testEngine === "postgres") {
    const pg = await emptyPostgres();
    db = openPostgresStore(pg.url, { max: 2 }).db;
    drop.push(pg.drop);
  } else {
    db = openSqliteStore(":memory:").db;
  }
  await db.exec("CREATE TABLE m (ws text NOT NULL, session text NOT NULL, nid text, body text)");
  await db.exec("CREATE INDEX m_nid ON m (ws, session, nid)");
  // one workspace and session, as in a single-number installation: the prefix selects every row
  const rows = Array.from({ length: ROWS }, (_, i) => ["w", "s", `N${i}`, "x".repeat(40)]);
  await db.prepare(
    db.engine === "postgres"
      ? "INSERT INTO m SELECT r->>0, r->>1, r->>2, r->>3 FROM jsonb_array_elements(?::jsonb) AS x(r)"
      : "INSERT INTO m SELECT r->>0, r->>1, r->>2, r->>3 FROM (SELECT value AS r FROM json_each(?))",
  ).run(JSON.stringify(rows));
  await db.exec("ANALYZE m");
});
afterAll(async () => {
  await db.close();
  for (const d of drop) await d();
});

test("the rows among the listed values, none twice, on either engine", async () => {
  const got = await db.prepare<{ nid: string }>(`SELECT nid FROM m WHERE ws = ? AND session = ? AND nid ${anyOf(db)} ORDER BY nid`).all("w", "s", anyOfArg(db, ["N7", "N42", "missing", "N7"]));
  expect(got.map((r) => r.nid)).toEqual(["N42", "N7"]);
  expect(await db.prepare(`SELECT nid FROM m WHERE ws = ? AND nid ${anyOf(db)}`).all("w", anyOfArg(db, []))).toEqual([]);
});

test("values with quotes, backslashes, commas, braces, spaces and the word NULL match only themselves", async () => {
  const odd = ['a"b', "c\\d", "e,f", "{g}", " h ", "NULL", "", "ü 🙂"];
  await db.prepare("INSERT INTO m (ws, session, nid, body) VALUES " + odd.map(() => "('odd', 's', ?, '')").join(", ")).run(...odd);
  const among = (values: string[]) => db.prepare<{ nid: string }>(`SELECT nid FROM m WHERE ws = 'odd' AND nid ${anyOf(db)}`).all(anyOfArg(db, values));
  expect((await among(odd)).map((r) => r.nid).sort()).toEqual([...odd].sort());
  for (const v of odd) expect((await among([v])).map((r) => r.nid)).toEqual([v]);
  expect(await among(["a", "b", "null", "{g", "c\\\\d"])).toEqual([]);
  // the builder's form binds the same way
  const viaBuilder = await db.all<{ nid: string }>(sql`SELECT nid FROM m WHERE ws = 'odd' AND nid ${anyOfSql(db, ['a"b', "NULL"])}`);
  expect(viaBuilder.map((r) => r.nid).sort()).toEqual(["NULL", 'a"b']);
});

test.skipIf(testEngine !== "postgres")("PostgreSQL only: the prepared statement's plan, generic as a pooled connection keeps it, probes the index instead of reading every row", async () => {
  const plan = async (table: string, cond: string, arg: string) => {
    const text = `SELECT nid FROM ${table} WHERE ws = $1 AND session = $2 AND nid ${cond}`;
    return db.tx(async () => {
      await db.exec("SET LOCAL plan_cache_mode = force_generic_plan");
      await db.exec(`PREPARE probe(text, text, text) AS ${text}`);
      try {
        const rows = (await db.all(`EXPLAIN EXECUTE probe('w', 's', '${arg}')`)) as { "QUERY PLAN": string }[];
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      } finally {
        await db.exec("DEALLOCATE probe");
      }
    });
  };
  const arg = anyOfArg(db, ["N1", "N2", "N3"]);
  const any = await plan("m", anyOf(db).replace("?", "$3"), arg);
  expect(any).toMatch(/Index Cond: .*nid = ANY/);
  expect(any).not.toContain("Seq Scan");
  expect(any).not.toContain("Filter");
  // the form before the one before, for the record: a scan of the session's rows
  expect(await plan("m", "IN (SELECT jsonb_array_elements_text($3::jsonb))", '["N1","N2","N3"]')).toContain("Seq Scan on m");
});
