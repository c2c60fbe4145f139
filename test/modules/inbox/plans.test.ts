import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { conversationsKeysetSql, type ConversationFilter } from "../../../src/modules/inbox/repo.ts";
import { searchMessageIds } from "../../../src/modules/inbox/search-repo.ts";
import type { DB } from "../../../src/db/store.ts";
import { reindexAllMessageText } from "../../../src/modules/messages/fts-repo.ts";
import { testEngine } from "../../helpers/postgres.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

// The search (20,000 messages): SQLite walks its FTS5 index in rowid order, no sort; PostgreSQL
// takes its GIN index for a rare word (and may walk the primary key for a common one).
// The conversation list's filters walk an index in the list's order (most recent first): the
// plan of each filter shape, on 20,000 conversations with fresh statistics. SQLite's plan is
// EXPLAIN QUERY PLAN; PostgreSQL's is EXPLAIN.

let t: TestApp;
let ws: TestWorkspace;
const N = 20_000;

beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  const db = t.deps.db;
  const pg = db.engine === "postgres";
  const series = pg ? `SELECT g AS n FROM generate_series(1, ${N}) g` : `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${N}) SELECT n FROM s`;
  await db
    .prepare(
      `INSERT INTO conversations (id, workspace_id, session_id, phone, last_message_at, unread_count, status, labels, last_direction, assignee_id, created_at, updated_at)
       SELECT ${pg ? "gen_random_uuid()::text" : "lower(hex(randomblob(16)))"}, ?, CASE WHEN n % 5 = 0 THEN 's1' ELSE 's2' END, '91' || n, n, 0,
              CASE WHEN n % 3 = 0 THEN 'open' WHEN n % 3 = 1 THEN 'closed' ELSE 'pending' END, '[]',
              CASE WHEN n % 7 = 0 THEN 'inbound' ELSE 'outbound' END, NULL, n, n
       FROM (${series}) x`,
    )
    .run(ws.id);
  await db
    .prepare(
      `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
       SELECT ${pg ? "lpad(n::text, 12, '0')" : "printf('%012d', n)"}, ?, 's', 'c', 'inbound', '91', 'text', 'word' || (n % 100) || ' common text ' || n, 'received', n, n
       FROM (${series}) x`,
    )
    .run(ws.id);
  // inserted by hand, not through the messages repo: the search index is written here
  await reindexAllMessageText(db);
  await db.prepare("ANALYZE").run();
}, 60_000);
afterAll(() => t.close());

async function plan(f: ConversationFilter, cursor: object): Promise<string> {
  const q = conversationsKeysetSql(t.deps.db, ws.id, { ...f, ...cursor, limit: 20 });
  const pg = t.deps.db.engine === "postgres";
  const rows = (await t.deps.db.prepare(`${pg ? "EXPLAIN" : "EXPLAIN QUERY PLAN"} ${q.sql}`).all(...q.args)) as Record<string, string>[];
  return rows.map((r) => r.detail ?? r["QUERY PLAN"]).join("\n");
}

describe("conversation list plans (both engines)", () => {
  const shapes: [ConversationFilter, RegExp][] = [
    [{}, /conversations_ws_recent_idx/],
    [{ status: "open" }, /conversations_ws_status_idx/],
    [{ sessionId: "s1" }, /conversations_ws_session_recent_idx/],
    [{ needsReply: true }, /conversations_ws_needs_reply_idx/],
    [{ assigneeId: "01a2193f-0000-7000-8000-000000000000" }, /conversations_ws_assignee_idx/],
    // every row here is unassigned: PostgreSQL rightly prefers the plain recent walk
    [{ assigned: false }, /conversations_ws_(assignee|recent)_idx/],
    [{ q: "123" }, /conversations_ws_recent_idx/],
  ];
  for (const [f, index] of shapes) {
    test(`${JSON.stringify(f)} walks ${index.source}, no sort`, async () => {
      for (const cursor of [{}, { before: { at: N / 2, id: "m" } }, { after: { at: N / 2, id: "m" } }]) {
        const p = await plan(f, cursor);
        expect(p).toMatch(index);
        expect(p).not.toMatch(/TEMP B-TREE|Sort Key|SCAN c\b|Seq Scan on conversations/);
      }
    });
  }

  test("a label with few conversations goes through conversation_labels' key", async () => {
    const p = await plan({ label: "vip", labelPlan: "set" }, {});
    expect(p).toMatch(/conversation_labels/);
    expect(p).not.toMatch(/SCAN c\b|Seq Scan on conversations/);
  });

  test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): a label with many conversations walks the recent index and probes the label's key, no sort", async () => {
    for (const cursor of [{}, { before: { at: N / 2, id: "m" } }]) {
      const p = await plan({ label: "vip", labelPlan: "probe" }, cursor);
      expect(p).toMatch(/conversations_ws_recent_idx/);
      expect(p).toMatch(/conversation_labels/);
      expect(p).not.toMatch(/TEMP B-TREE/);
    }
  });
});

/** The plans of the statements `run` prepares (the search builds its statement inside). */
async function plansOf(run: (db: DB) => Promise<unknown>): Promise<string> {
  const db = t.deps.db;
  const pg = db.engine === "postgres";
  const plans: string[] = [];
  const spy = new Proxy(db, {
    get(target, key) {
      if (key !== "prepare") return Reflect.get(target, key);
      return (text: string) => {
        const st = target.prepare(text);
        return { ...st, all: async (...args: unknown[]) => {
          const rows = (await target.prepare(`${pg ? "EXPLAIN" : "EXPLAIN QUERY PLAN"} ${text}`).all(...(args as string[]))) as Record<string, string>[];
          plans.push(rows.map((r) => r.detail ?? r["QUERY PLAN"]).join("\n"));
          return st.all(...(args as string[]));
        } };
      };
    },
  });
  await run(spy as DB);
  return plans.join("\n");
}

describe("search plans (both engines)", () => {
  test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): the FTS5 index in rowid order, no sort, for rare and common words and with a cursor", async () => {
    for (const words of [["12345"], ["common"], ["common", "text"]]) {
      for (const c of [{}, { before: "000000010000" }, { after: "000000010000" }]) {
        const p = await plansOf((db) => searchMessageIds(db, ws.id, words, { ...c, limit: 20 }));
        expect(p).toMatch(/SCAN f VIRTUAL TABLE INDEX/);
        expect(p).not.toMatch(/TEMP B-TREE|SCAN m\b/);
      }
    }
  });

  test.skipIf(testEngine !== "postgres")("PostgreSQL only (skipped on SQLite): a rare word goes through the GIN index", async () => {
    for (const c of [{}, { before: "000000010000" }]) {
      const p = await plansOf((db) => searchMessageIds(db, ws.id, ["12345"], { ...c, limit: 20 }));
      expect(p).toMatch(/Bitmap Index Scan on messages_body_search_idx/);
    }
    expect(await searchMessageIds(t.deps.db, ws.id, ["12345"], { limit: 20 })).toEqual(["000000012345"]);
  });
});
