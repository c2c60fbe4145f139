import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, waitFor } from "../messages/helpers.ts";

// GET /api/v1/inbox/search: the engine's full-text index (FTS5 on SQLite, a tsvector GIN index on
// PostgreSQL), kept in step with the messages in their own transaction.

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let s1: { id: string; phone: string };
let s9: { id: string; phone: string };

async function inbound(session: string, from: string, text: string) {
  const events = recordEvents(t);
  t.sim.inbound(session, { from, type: "text", text });
  await waitFor(() => events.some((e) => e.event === "message_received" && e.data.text === text), "message_received");
  t.clock.advance(5);
}
const search = (q: string, token = ws.owner.token) => t.request("GET", `/api/v1/inbox/search?${q}`, { token });
const bodies = (r: { body: { data: { body: string }[] } }) => r.body.data.map((m) => m.body);

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  s1 = await connectedSession(t, ws);
  s9 = await connectedSession(t, other);
  await inbound(s1.id, "919877700001", "Do you have the blue shoes in size 9?");
  await inbound(s1.id, "919877700002", "Blue SHOES, size 10 please");
  await inbound(s1.id, "919877700001", "also a red bag");
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s1.id, to: "919877700001", body: "The blue shoes ship tomorrow" } });
  expect(r.status).toBe(202);
  await drain(t);
  t.clock.advance(5);
  await inbound(s9.id, "919877700003", "blue shoes for the other workspace");
});
afterAll(() => t.close());

describe("search", () => {
  test("finds messages holding every word, any case, newest first, each with its conversation", async () => {
    const r = await search("q=blue%20shoes");
    expect(r.status).toBe(200);
    expect(bodies(r)).toEqual(["The blue shoes ship tomorrow", "Blue SHOES, size 10 please", "Do you have the blue shoes in size 9?"]);
    const hit = r.body.data[0];
    expect(hit).toMatchObject({ direction: "outbound", sessionId: s1.id, conversation: { id: hit.conversationId, phone: "919877700001", sessionId: s1.id } });
    expect(r.body.pagination).toEqual({ limit: 20, hasMore: false, nextCursor: null, prevCursor: null });
    expect(bodies(await search("q=size%2010"))).toEqual(["Blue SHOES, size 10 please"]);
    expect(bodies(await search("q=BAG"))).toEqual(["also a red bag"]);
    expect(bodies(await search("q=shoes%20bag"))).toEqual([]);
    // punctuation is no syntax: only the words count
    expect(bodies(await search(`q=${encodeURIComponent('"bag" OR (shoes*')}`))).toEqual([]);
    expect(bodies(await search(`q=${encodeURIComponent("red: bag!")}`))).toEqual(["also a red bag"]);
  });

  test("keyset pages walk every hit once, and back", async () => {
    const all = (await search("q=blue")).body.data.map((m: { id: string }) => m.id);
    expect(all.length).toBe(3);
    const p1 = await search("q=blue&limit=1");
    expect(p1.body.pagination.hasMore).toBe(true);
    const p2 = await search(`q=blue&limit=1&before=${p1.body.pagination.nextCursor}`);
    const p3 = await search(`q=blue&limit=1&before=${p2.body.pagination.nextCursor}`);
    expect([...p1.body.data, ...p2.body.data, ...p3.body.data].map((m: { id: string }) => m.id)).toEqual(all);
    expect(p3.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    const back = await search(`q=blue&limit=2&after=${all[2]}`);
    expect(back.body.data.map((m: { id: string }) => m.id)).toEqual([all[0], all[1]]);
  });

  test("another workspace's messages are never found, nor reached through its ids", async () => {
    const mine = await search("q=workspace");
    expect(mine.body.data).toEqual([]);
    const theirs = await search("q=blue", other.owner.token);
    expect(bodies(theirs)).toEqual(["blue shoes for the other workspace"]);
    const cursor = (await search("q=blue")).body.data[0].id;
    expect((await search(`q=blue&before=${cursor}`, other.owner.token)).body.data).toEqual([]);
  });

  test("the index follows the messages in their transaction: a changed text, a rolled-back insert", async () => {
    const [hit] = (await search("q=bag")).body.data;
    await t.deps.db.prepare("UPDATE messages SET body = ? WHERE id = ?").run("also a green scarf", hit.id);
    expect(bodies(await search("q=bag"))).toEqual([]);
    expect(bodies(await search("q=green%20scarf"))).toEqual(["also a green scarf"]);
    const at = t.clock.now().getTime();
    await expect(
      t.deps.db.tx(async () => {
        const id = Bun.randomUUIDv7();
        await t.deps.db
          .prepare(
            `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
             VALUES (?, ?, ?, ?, 'inbound', '919877700009', 'text', 'phantom words', 'received', ?, ?)`,
          )
          .run(id, ws.id, s1.id, hit.conversationId, at, at);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(bodies(await search("q=phantom"))).toEqual([]);
    await t.deps.db.prepare("DELETE FROM messages WHERE id = ?").run(hit.id);
    expect(bodies(await search("q=scarf"))).toEqual([]);
  });

  test("bad queries answer 400 naming the field; viewers may search", async () => {
    for (const [q, field] of [
      ["", "q"],
      ["q=", "q"],
      ["q=%21%3F%2A", "q"],
      [`q=${"x".repeat(201)}`, "q"],
      ["q=blue&limit=500", "limit"],
      ["q=blue&before=nope", "before"],
      [`q=blue&before=${Bun.randomUUIDv7()}&after=${Bun.randomUUIDv7()}`, "after"],
    ]) {
      const r = await search(q!);
      expect(r.status, q).toBe(400);
      expect(r.body.errors[field!], q).toBeDefined();
    }
    const viewer = await ws.member("viewer");
    expect((await search("q=blue", viewer.token)).status).toBe(200);
  });
});
