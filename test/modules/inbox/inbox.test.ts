import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, waitFor } from "../messages/helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let s1: { id: string; phone: string };
let s2: { id: string; phone: string };

async function inbound(session: string, from: string, text: string, pushName?: string) {
  const events = recordEvents(t);
  t.sim.inbound(session, { from, type: "text", text, pushName });
  await waitFor(() => events.some((e) => e.event === "message_received"), "message_received");
}
const list = (query = "", token = ws.owner.token) => t.request("GET", `/api/v1/inbox/conversations${query}`, { token });
const byPhone = (rows: any[], phone: string, sessionId = s1.id): any => rows.find((c) => c.phone === phone && c.sessionId === sessionId);

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  s1 = await connectedSession(t, ws);
  s2 = await connectedSession(t, ws);
  await inbound(s1.id, "919833300001", "hello from one", "One");
  await inbound(s1.id, "919833300001", "still one");
  await inbound(s1.id, "919833300002", "hello from two", "Two");
  await inbound(s2.id, "919833300001", "one, other number");
  t.clock.advance(1000);
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s1.id, to: "919833300003", body: "we write first" } });
  expect(r.status).toBe(202);
  await drain(t);
});
afterAll(() => t.close());

describe("conversations", () => {
  test("one per (session, contact), with last message, unread count and contact", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body.pagination).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
    const rows = r.body.data;
    expect(rows[0].phone).toBe("919833300003"); // most recent first
    expect(rows[0].unreadCount).toBe(0);
    expect(rows[0].lastMessage).toMatchObject({ direction: "outbound", body: "we write first", status: "sent" });
    expect(rows[0].contact).toBeNull();
    const one = byPhone(rows, "919833300001");
    expect(one.unreadCount).toBe(2);
    expect(one.lastMessage).toMatchObject({ direction: "inbound", body: "still one", type: "text", status: "received" });
    expect(one.contact).toMatchObject({ phone: "919833300001", pushName: "One" });
    expect(one.assignee).toBeNull();
    expect(byPhone(rows, "919833300001", s2.id).unreadCount).toBe(1);
  });

  test("filters: unread, sessionId", async () => {
    const unread = await list("?unread=true");
    expect(unread.body.data.map((c: { phone: string }) => c.phone).sort()).toEqual(["919833300001", "919833300001", "919833300002"]);
    const read = await list("?unread=false");
    expect(read.body.data.map((c: { phone: string }) => c.phone)).toEqual(["919833300003"]);
    const second = await list(`?sessionId=${s2.id}`);
    expect(second.body.pagination.total).toBe(1);
  });

  test("page and limit", async () => {
    const p1 = await list("?limit=3");
    const p2 = await list("?limit=3&page=2");
    expect(p1.body.pagination).toEqual({ page: 1, limit: 3, total: 4, totalPages: 2 });
    expect(p2.body.data.length).toBe(1);
    const ids = [...p1.body.data, ...p2.body.data].map((c: { id: string }) => c.id);
    expect(new Set(ids).size).toBe(4);
  });

  test("messages of a conversation, newest first with cursors", async () => {
    const one = byPhone((await list()).body.data, "919833300001");
    const r = await t.request("GET", `/api/v1/inbox/conversations/${one.id}/messages?limit=1`, { token: ws.owner.token });
    expect(r.body.data.map((m: { body: string }) => m.body)).toEqual(["still one"]);
    expect(r.body.pagination.hasMore).toBe(true);
    const next = await t.request("GET", `/api/v1/inbox/conversations/${one.id}/messages?limit=1&before=${r.body.pagination.nextCursor}`, { token: ws.owner.token });
    expect(next.body.data.map((m: { body: string }) => m.body)).toEqual(["hello from one"]);
    expect(next.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
  });

  test("read: unread count drops to 0 and the inbound messages are marked read; a viewer may not", async () => {
    const one = byPhone((await list()).body.data, "919833300001");
    const viewer = await ws.member("viewer");
    expect((await t.request("POST", `/api/v1/inbox/conversations/${one.id}/read`, { token: viewer.token })).status).toBe(403);
    const r = await t.request("POST", `/api/v1/inbox/conversations/${one.id}/read`, { token: ws.owner.token });
    expect(r.status).toBe(200);
    expect(r.body.data.unreadCount).toBe(0);
    expect(r.body.data.lastReadAt).not.toBeNull();
    const unreadLeft = await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE conversation_id = ? AND direction = 'inbound' AND read_at IS NULL").get(one.id) as { n: number };
    expect(unreadLeft.n).toBe(0);
    // a new inbound message makes it unread again
    await inbound(s1.id, "919833300001", "are you there?");
    expect(byPhone((await list()).body.data, "919833300001").unreadCount).toBe(1);
  });

  test("assign to an agent, filter by assignee, unassign", async () => {
    const two = byPhone((await list()).body.data, "919833300002");
    const agent = await ws.member("agent");
    const r = await t.request("PUT", `/api/v1/inbox/conversations/${two.id}/assign`, { token: agent.token, body: { userId: agent.userId } });
    expect(r.status).toBe(200);
    expect(r.body.data.assignee).toEqual({ id: agent.userId, name: "Test agent", email: agent.email });
    expect((await list("?assigned=true")).body.data.map((c: { id: string }) => c.id)).toEqual([two.id]);
    expect((await list(`?assigneeId=${agent.userId}`)).body.data.map((c: { id: string }) => c.id)).toEqual([two.id]);
    expect((await list("?assigned=false")).body.data.some((c: { id: string }) => c.id === two.id)).toBe(false);
    const un = await t.request("PUT", `/api/v1/inbox/conversations/${two.id}/assign`, { token: ws.owner.token, body: { userId: null } });
    expect(un.body.data.assignee).toBeNull();
  });

  test("assign refuses users of other workspaces, viewers and bad bodies", async () => {
    const two = byPhone((await list()).body.data, "919833300002");
    const path = `/api/v1/inbox/conversations/${two.id}/assign`;
    const foreign = await t.request("PUT", path, { token: ws.owner.token, body: { userId: other.owner.userId } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors.userId).toBe("is not a member of this workspace");
    const viewer = await ws.member("viewer");
    const v = await t.request("PUT", path, { token: ws.owner.token, body: { userId: viewer.userId } });
    expect(v.status).toBe(400);
    expect(v.body.errors.userId).toContain("viewer");
    const bad = await t.request("PUT", path, { token: ws.owner.token, body: { userId: "x" } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.userId).toBeDefined();
    const missing = await t.request("PUT", path, { token: ws.owner.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.userId).toBeDefined();
  });

  test("another workspace sees none of it and its ids answer 404", async () => {
    const theirs = await list("", other.owner.token);
    expect(theirs.body.data).toEqual([]);
    const one = byPhone((await list()).body.data, "919833300001");
    for (const [method, path, body] of [
      ["GET", `/api/v1/inbox/conversations/${one.id}`, undefined],
      ["GET", `/api/v1/inbox/conversations/${one.id}/messages`, undefined],
      ["POST", `/api/v1/inbox/conversations/${one.id}/read`, undefined],
      ["PUT", `/api/v1/inbox/conversations/${one.id}/assign`, { userId: other.owner.userId }],
    ] as const) {
      const r = await t.request(method, path, { token: other.owner.token, body });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("NOT_FOUND");
    }
  });

  test("query validation names the field", async () => {
    for (const [q, field] of [["?unread=yes", "unread"], ["?limit=500", "limit"], ["?assigneeId=7", "assigneeId"]]) {
      const r = await list(q);
      expect(r.status).toBe(400);
      expect(r.body.errors[field!]).toBeDefined();
    }
  });
});
