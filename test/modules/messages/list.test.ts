import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { messagePageQuery, type MessageFilter } from "../../../src/modules/messages/repo.ts";
import { reindexAllMessageText } from "../../../src/modules/messages/fts-repo.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { testEngine } from "../../helpers/postgres.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

const N = 100_000;
/** a walk is a thousand requests: on PostgreSQL on a loaded machine that passes the default 5 s */
const WALK_MS = 60_000;
let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const sessions = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
const STATUSES = ["sent", "delivered", "read", "failed", "received"] as const;
let insert: (ws: string, i: number, at: number) => Promise<unknown>;
let base: number;

beforeAll(async () => {
  t = await createTestApp({ config: { rateLimitPerMinute: 1_000_000 } }); // walks a thousand pages
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  const stmt = t.deps.db.prepare(
    `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'text', ?, ?, ?, ?)`,
  );
  insert = (w, i, at) => {
    const status = STATUSES[i % 5]!;
    const id = Bun.randomUUIDv7(undefined, at);
    // inserted by hand, not through the messages repo (the search index follows by itself)
    return stmt.run(id, w, sessions[i % 2]!, "c" + (i % 50), status === "received" ? "inbound" : "outbound", `91990${String(i % 100).padStart(7, "0")}`, `m${i}`, status, at, at);
  };
  base = t.clock.now().getTime() - N;
  // seeded 500 rows a statement: one round trip per row would take minutes on PostgreSQL
  const row = (w: string, i: number, at: number) => {
    const status = STATUSES[i % 5]!;
    return [Bun.randomUUIDv7(undefined, at), w, sessions[i % 2]!, "c" + (i % 50), status === "received" ? "inbound" : "outbound", `91990${String(i % 100).padStart(7, "0")}`, `m${i}`, status, at, at];
  };
  const CHUNK = 500;
  const many = t.deps.db.prepare(
    `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at) VALUES ` +
      Array.from({ length: CHUNK }, () => "(?, ?, ?, ?, ?, ?, 'text', ?, ?, ?, ?)").join(", "),
  );
  await t.deps.db.tx(async () => {
    for (let i = 0; i < N; i += CHUNK) await many.run(...Array.from({ length: CHUNK }, (_, k) => row(ws.id, i + k, base + i + k)).flat());
    for (let i = 0; i < 1000; i += CHUNK) await many.run(...Array.from({ length: CHUNK }, (_, k) => row(other.id, i + k, base + i + k)).flat());
    await reindexAllMessageText(t.deps.db); // the search index of the rows inserted by hand
  });
});
afterAll(() => t.close());

const get = (q: string) => t.request("GET", `/api/v1/messages?${q}`, { token: ws.owner.token });

/** Walks every page following nextCursor; optionally adds newer rows while walking. */
async function walk(q: string, onPage?: (n: number) => Promise<void> | void) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    const r = await get(`${q}&limit=100${cursor ? `&before=${cursor}` : ""}`);
    expect(r.status).toBe(200);
    ids.push(...r.body.data.map((m: { id: string }) => m.id));
    await onPage?.(page);
    cursor = r.body.pagination.nextCursor;
    if (!r.body.pagination.hasMore) {
      expect(cursor).toBeNull();
      return ids;
    }
  }
}

describe("keyset pagination over 100k messages", () => {
  test("walking every page yields every message once, newest first, even while new ones arrive", async () => {
    let added = 0;
    const ids = await walk("x=1", async (page) => {
      if (page % 100 === 0) {
        // new messages land at the top; the walk below the cursor is unaffected
        for (let i = 0; i < 5; i++) await insert(ws.id, N + added++, t.clock.now().getTime() + added);
      }
    });
    expect(ids.length).toBe(N);
    expect(new Set(ids).size).toBe(N);
    const sorted = [...ids].sort().reverse();
    expect(ids).toEqual(sorted);
    const expected = (await t.deps.db.prepare("SELECT id FROM messages WHERE workspace_id = ? AND created_at < ? ORDER BY id DESC").all(ws.id, base + N) as { id: string }[]).map((r) => r.id);
    expect(ids).toEqual(expected);
  }, WALK_MS);

  test("a filtered walk (session + status) matches the table exactly", async () => {
    const ids = await walk(`sessionId=${sessions[1]}&status=delivered`);
    const expected = (await t.deps.db.prepare("SELECT id FROM messages WHERE workspace_id = ? AND session_id = ? AND status = 'delivered' ORDER BY id DESC").all(ws.id, sessions[1]!) as { id: string }[]).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(1000);
    expect(ids).toEqual(expected);
  });

  test("walking forward with `after` from the oldest gives the same set", async () => {
    const slice = (await get("direction=inbound&phone=919900000004&limit=100")).body; // a small slice: 1,000 rows
    expect(slice.data.length).toBe(100);
    const all: string[] = [];
    let after: string | null = "00000000-0000-7000-8000-000000000000";
    while (after) {
      const r = await get(`direction=inbound&phone=919900000004&limit=100&after=${after}`);
      // each page is newest first; pages move toward newer messages
      all.unshift(...r.body.data.map((m: { id: string }) => m.id));
      after = r.body.pagination.hasMore ? r.body.pagination.prevCursor : null;
    }
    const expected = (await t.deps.db.prepare("SELECT id FROM messages WHERE workspace_id = ? AND direction = 'inbound' AND phone = '919900000004' ORDER BY id DESC").all(ws.id) as { id: string }[]).map((r) => r.id);
    expect(all).toEqual(expected);
  });

  test("another workspace's messages never show", async () => {
    const r = await t.request("GET", "/api/v1/messages?limit=100", { token: other.owner.token });
    expect(r.body.data.length).toBe(100);
    const mine = new Set((await walk("x=1")).slice(0, 10));
    expect(r.body.data.some((m: { id: string }) => mine.has(m.id))).toBe(false);
  });

  // SQLite's plan (EXPLAIN QUERY PLAN); PostgreSQL plans by its statistics
  test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): every filter shape walks an index: no table scan, no sort", async () => {
    const shapes: MessageFilter[] = [
      {},
      { sessionId: sessions[0] },
      { phone: "919900000001" },
      { conversationId: "c1" },
      { status: "failed" },
      { direction: "inbound" },
      { sessionId: sessions[0], status: "read" },
      { phone: "919900000001", direction: "outbound" },
    ];
    for (const f of shapes) {
      for (const c of [{ limit: 20 }, { limit: 20, before: Bun.randomUUIDv7() }, { limit: 20, after: Bun.randomUUIDv7(undefined, base) }]) {
        const q = messagePageQuery(t.deps.db, ws.id, f, c).toSQL();
        const plan = (await t.deps.db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.params as string[])) as { detail: string }[]).map((r) => r.detail).join(" | ");
        expect(plan).toMatch(/SEARCH messages USING INDEX messages_ws_/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
        expect(plan).not.toMatch(/SCAN messages/);
      }
    }
  });
});

describe("list validation", () => {
  test("page numbers past 1, before with after, and bad filters are 400 naming the field", async () => {
    for (const [q, field] of [
      ["page=2", "page"],
      [`before=${Bun.randomUUIDv7()}&after=${Bun.randomUUIDv7()}`, "after"],
      ["limit=101", "limit"],
      ["limit=0", "limit"],
      ["status=pending", "status"],
      ["direction=up", "direction"],
      ["phone=12", "phone"],
      ["before=abc", "before"],
      ["sessionId=1", "sessionId"],
    ]) {
      const r = await get(q!);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(r.body.errors[field!]).toBeDefined();
    }
  });

  test("page=1 is the first page; an unknown contactId matches nothing", async () => {
    const r = await get("page=1&limit=5");
    expect(r.body.data.length).toBe(5);
    expect(r.body.pagination).toEqual({ limit: 5, hasMore: true, nextCursor: r.body.data[4].id, prevCursor: null });
    const none = await get(`contactId=${Bun.randomUUIDv7()}`);
    expect(none.body).toEqual({ success: true, data: [], pagination: { limit: 20, hasMore: false, nextCursor: null, prevCursor: null } });
  });
});
