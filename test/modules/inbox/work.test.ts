import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestMember, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, waitFor } from "../messages/helpers.ts";
import { advanceUntil, campaign, campaignBody, newCampaign, seedContacts } from "../campaigns/helpers.ts";
import { conversationsKeyset } from "../../../src/modules/inbox/repo.ts";

// Working the inbox: status, snooze, labels, assignee, the filters and keyset pages, and
// conversation_updated over /api/ws.

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let agent: TestMember;
let viewer: TestMember;
let s1: { id: string; phone: string };
let s2: { id: string; phone: string };

async function inbound(session: string, from: string, text: string, pushName?: string) {
  const events = recordEvents(t);
  t.sim.inbound(session, { from, type: "text", text, pushName });
  await waitFor(() => events.some((e) => e.event === "message_received" && e.data.from === from), "message_received");
}
const list = (query = "", token = ws.owner.token) => t.request("GET", `/api/v1/inbox/conversations${query}`, { token });
const patch = (id: string, body: unknown, token = ws.owner.token) => t.request("PATCH", `/api/v1/inbox/conversations/${id}`, { token, body });
const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((c) => c.id);
async function conv(phone: string, sessionId = s1.id): Promise<any> {
  const r = await list(`?q=${phone}&sessionId=${sessionId}`);
  return r.body.data[0];
}

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  agent = await ws.member("agent");
  viewer = await ws.member("viewer");
  s1 = await connectedSession(t, ws, { name: "Sales line" });
  s2 = await connectedSession(t, ws, { name: "Support line" });
  await seedContacts(t, ws, 1, () => ({ phone: "919844400001", name: "Asha Rao" }));
  await inbound(s1.id, "919844400001", "Do you deliver to Pune?");
  t.clock.advance(10);
  await inbound(s1.id, "919844400002", "price list please", "Bilal");
  t.clock.advance(10);
  await inbound(s2.id, "919844400003", "my order is late", "Chen");
  t.clock.advance(10);
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s1.id, to: "919844400004", body: "Your order shipped" } });
  expect(r.status).toBe(202);
  await drain(t);
});
afterAll(() => t.close());

describe("conversation fields", () => {
  test("status open, no snooze, no labels, the session's name and number, lastMessage {preview, direction, at}", async () => {
    const c = await conv("919844400001");
    expect(c).toMatchObject({ status: "open", snoozedUntil: null, labels: [], unreadCount: 1, sessionId: s1.id });
    expect(c.session).toEqual({ id: s1.id, name: "Sales line", phoneNumber: s1.phone });
    expect(c.lastMessage).toMatchObject({ preview: "Do you deliver to Pune?", direction: "inbound", at: expect.stringMatching(/Z$/) });
    expect(c.contact).toMatchObject({ name: "Asha Rao" });
    const ours = await conv("919844400004");
    expect(ours.lastMessage).toMatchObject({ preview: "Your order shipped", direction: "outbound" });
    expect(ours.status).toBe("open");
  });
});

describe("PATCH /api/v1/inbox/conversations/{id}", () => {
  test("status, snooze, labels and assignee change; the answer is the conversation", async () => {
    const c = await conv("919844400002");
    const until = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const r = await patch(c.id, { status: "pending", snoozedUntil: until, labels: ["Lead", " pricing ", "lead"], assigneeId: agent.userId }, agent.token);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: c.id, status: "pending", snoozedUntil: until, labels: ["lead", "pricing"], assignee: { id: agent.userId } });
    // a partial change keeps the rest
    const r2 = await patch(c.id, { labels: ["pricing"] });
    expect(r2.body.data).toMatchObject({ status: "pending", labels: ["pricing"], assignee: { id: agent.userId } });
    const rows = (await t.deps.db.prepare("SELECT label FROM conversation_labels WHERE conversation_id = ? ORDER BY label").all(c.id)) as { label: string }[];
    expect(rows.map((x) => x.label)).toEqual(["pricing"]);
    const r3 = await patch(c.id, { snoozedUntil: null, assigneeId: null, status: "open" });
    expect(r3.body.data).toMatchObject({ status: "open", snoozedUntil: null, assignee: null });
  });

  test("bad input answers 400 naming the field and changes nothing", async () => {
    const c = await conv("919844400002");
    const past = new Date(t.clock.now().getTime() - 1000).toISOString();
    const cases: [unknown, string][] = [
      [{ status: "snoozed" }, "status"],
      [{ snoozedUntil: "tomorrow" }, "snoozedUntil"],
      [{ snoozedUntil: past }, "snoozedUntil"],
      [{ labels: "vip" }, "labels"],
      [{ labels: ["x".repeat(41)] }, "labels.0"],
      [{ labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, "labels"],
      [{ assigneeId: "7" }, "assigneeId"],
      [{ assigneeId: other.owner.userId }, "assigneeId"],
      [{ assigneeId: viewer.userId }, "assigneeId"],
      [{ colour: "red" }, "root"],
    ];
    for (const [body, field] of cases) {
      const r = await patch(c.id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(r.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect((await patch(c.id, {})).status).toBe(400);
    expect((await patch("nope", { status: "closed" })).body.errors.id).toBeDefined();
    const after = await conv("919844400002");
    expect(after).toMatchObject({ status: "open", snoozedUntil: null, labels: ["pricing"], assignee: null });
  });

  test("viewers read but may not change; agents may", async () => {
    const c = await conv("919844400002");
    expect((await list("", viewer.token)).status).toBe(200);
    const r = await patch(c.id, { status: "closed" }, viewer.token);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("FORBIDDEN");
    expect((await patch(c.id, { status: "open" }, agent.token)).status).toBe(200);
  });

  test("another workspace's conversation answers 404 and is not changed", async () => {
    const c = await conv("919844400002");
    const r = await patch(c.id, { status: "closed" }, other.owner.token);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("NOT_FOUND");
    expect((await list("", other.owner.token)).body.data).toEqual([]);
    expect((await conv("919844400002")).status).toBe("open");
  });
});

describe("status follows the messages", () => {
  test("an inbound message reopens a closed conversation and wakes a snoozed one", async () => {
    const a = await conv("919844400001");
    await patch(a.id, { status: "closed" });
    const b = await conv("919844400003", s2.id);
    await patch(b.id, { status: "pending", snoozedUntil: new Date(t.clock.now().getTime() + 86_400_000).toISOString() });
    await inbound(s1.id, "919844400001", "hello again?");
    await inbound(s2.id, "919844400003", "any news?");
    expect(await conv("919844400001")).toMatchObject({ status: "open", snoozedUntil: null });
    // pending stays pending (waiting on someone), but the snooze ends
    expect(await conv("919844400003", s2.id)).toMatchObject({ status: "pending", snoozedUntil: null });
    await patch(b.id, { status: "open" });
  });

  test("a campaign's message creates its conversation closed; the person's reply opens it", async () => {
    const people = await seedContacts(t, ws, 2, (i) => ({ phone: `91985550000${i}`, name: `Buyer ${i}` }));
    const id = await newCampaign(t, ws, campaignBody([s1.id], people.map((p) => p.id)));
    await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 300);
    const a = await conv("919855500000");
    expect(a).toMatchObject({ status: "closed", lastMessage: { direction: "outbound" } });
    expect((await list("?status=closed")).body.data.map((c: { phone: string }) => c.phone).sort()).toEqual(["919855500000", "919855500001"]);
    await inbound(s1.id, "919855500000", "STOP? no, tell me more");
    expect(await conv("919855500000")).toMatchObject({ status: "open", lastMessage: { direction: "inbound" } });
  });

  test("a later message of ours to an existing conversation keeps its status", async () => {
    const a = await conv("919844400004");
    await patch(a.id, { status: "pending" });
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s1.id, to: "919844400004", body: "Any questions?" } });
    expect(r.status).toBe(202);
    await drain(t);
    expect((await conv("919844400004")).status).toBe("pending");
    await patch(a.id, { status: "open" });
  });
});

describe("filters", () => {
  test("status, assignee (me, none, a user), label, sessionId, needsReply, q", async () => {
    const asha = await conv("919844400001");
    const bilal = await conv("919844400002");
    const chen = await conv("919844400003", s2.id);
    await patch(asha.id, { assigneeId: agent.userId, labels: ["vip"] });
    await patch(bilal.id, { assigneeId: ws.owner.userId, status: "pending", labels: ["vip", "pricing"] });

    expect(ids(await list("?assignee=me", agent.token))).toEqual([asha.id]);
    expect(ids(await list("?assignee=me"))).toEqual([bilal.id]);
    expect(ids(await list(`?assignee=${agent.userId}`))).toEqual([asha.id]);
    const none = ids(await list("?assignee=none&limit=100"));
    expect(none).toContain(chen.id);
    expect(none).not.toContain(asha.id);
    expect(ids(await list("?status=pending"))).toEqual([bilal.id]);
    expect(ids(await list("?label=vip")).sort()).toEqual([asha.id, bilal.id].sort());
    expect(ids(await list("?label=VIP&status=pending"))).toEqual([bilal.id]);
    expect(ids(await list(`?sessionId=${s2.id}`))).toEqual([chen.id]);
    const waiting = (await list("?needsReply=true&limit=100")).body.data;
    expect(waiting.every((c: any) => c.lastMessage.direction === "inbound")).toBe(true);
    expect(waiting.map((c: any) => c.id)).toEqual(expect.arrayContaining([asha.id, bilal.id, chen.id]));
    expect(waiting.some((c: any) => c.phone === "919844400004")).toBe(false);
    expect((await list("?needsReply=false&limit=100")).body.data.every((c: any) => c.lastMessage.direction === "outbound")).toBe(true);
    // q: part of the contact's name (any case), push name or phone
    expect(ids(await list("?q=asha"))).toEqual([asha.id]);
    expect(ids(await list("?q=bIlAl"))).toEqual([bilal.id]);
    expect(ids(await list("?q=44400003"))).toEqual([chen.id]);
    expect(ids(await list("?q=%25"))).toEqual([]);
    expect((await list("?q=asha")).body.pagination.total).toBe(1);
  });

  test("a label read as a set or by probing the recent walk gives the same pages", async () => {
    for (const label of ["vip", "pricing", "none-such"]) {
      const set = await conversationsKeyset(t.deps.db, ws.id, { label, labelPlan: "set", limit: 100 });
      const probe = await conversationsKeyset(t.deps.db, ws.id, { label, labelPlan: "probe", limit: 100 });
      expect(probe.rows.map((r) => r.id)).toEqual(set.rows.map((r) => r.id));
      expect(ids(await list(`?label=${label}&limit=100`))).toEqual(set.rows.map((r) => r.id));
    }
  });

  test("q read as a set or as a filter of the recent walk gives the same pages", async () => {
    for (const q of ["asha", "BILAL", "98444", "44400003", "%", "nobody"]) {
      const set = await conversationsKeyset(t.deps.db, ws.id, { q, qPlan: "set", limit: 100 });
      const probe = await conversationsKeyset(t.deps.db, ws.id, { q, qPlan: "probe", limit: 100 });
      expect(set.rows.map((r) => r.id), q).toEqual(probe.rows.map((r) => r.id));
    }
  });

  test("snoozed: true while snoozedUntil lies ahead; false otherwise", async () => {
    const chen = await conv("919844400003", s2.id);
    await patch(chen.id, { snoozedUntil: new Date(t.clock.now().getTime() + 60_000).toISOString() });
    expect(ids(await list("?snoozed=true"))).toEqual([chen.id]);
    expect(ids(await list("?snoozed=false&limit=100"))).not.toContain(chen.id);
    t.clock.advance(60_001);
    expect(ids(await list("?snoozed=true"))).toEqual([]);
    expect(ids(await list("?snoozed=false&limit=100"))).toContain(chen.id);
    await patch(chen.id, { snoozedUntil: null });
  });

  test("bad filters answer 400 naming the field", async () => {
    for (const [q, field] of [
      ["?status=done", "status"],
      ["?assignee=someone", "assignee"],
      ["?needsReply=yes", "needsReply"],
      ["?label=", "label"],
      ["?q=", "q"],
      ["?before=123", "before"],
      [`?before=1.${s1.id}&after=1.${s1.id}`, "after"],
    ]) {
      const r = await list(q);
      expect(r.status, q).toBe(400);
      expect(r.body.errors[field!], q).toBeDefined();
    }
  });

  test("keyset pages: nextCursor walks older, prevCursor walks back, no row twice", async () => {
    const all = ids(await list("?limit=100"));
    expect(all.length).toBeGreaterThan(4);
    const first = await list("?limit=2");
    expect(ids(first)).toEqual(all.slice(0, 2));
    // a numbered page's last conversation starts the keyset walk
    let cursor = first.body.data.at(-1).cursor as string;
    const seen = ids(first);
    let last: any;
    while (cursor) {
      last = await list(`?limit=2&before=${cursor}`);
      expect(last.status).toBe(200);
      expect(last.body.pagination.total).toBeUndefined();
      seen.push(...ids(last));
      cursor = last.body.pagination.nextCursor;
    }
    expect(seen).toEqual(all);
    expect(last.body.pagination.hasMore).toBe(false);
    const back = await list(`?limit=2&after=${last.body.pagination.prevCursor}`);
    const end = all.length - ids(last).length;
    expect(ids(back)).toEqual(all.slice(end - 2, end));
    // filters apply to keyset pages too
    const vip1 = await list("?label=vip&limit=1");
    const vip2 = await list(`?label=vip&limit=1&before=${vip1.body.data[0].cursor}`);
    expect(vip2.body.data.length).toBe(1);
    expect(vip2.body.data[0].labels).toContain("vip");
    expect(vip2.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
  });
});

describe("conversation_updated over /api/ws", () => {
  test("a change reaches the workspace's sockets (and no other's) with the conversation", async () => {
    t.app.listen({ hostname: "127.0.0.1", port: 0 });
    const base = `ws://127.0.0.1:${t.app.server!.port}/api/ws?token=`;
    const open = (token: string) =>
      new Promise<{ sock: WebSocket; got: any[] }>((resolve, reject) => {
        const sock = new WebSocket(base + token);
        const got: any[] = [];
        sock.onmessage = (m) => {
          const msg = JSON.parse(String(m.data));
          if (msg.event === "ready") resolve({ sock, got });
          else got.push(msg);
        };
        sock.onerror = () => reject(new Error("websocket failed"));
      });
    const mine = await open(viewer.token);
    const theirs = await open(other.owner.token);
    try {
      const c = await conv("919844400002");
      await patch(c.id, { labels: ["vip", "callback"] }, agent.token);
      await waitFor(() => mine.got.find((m) => m.event === "conversation_updated"), "conversation_updated");
      const e = mine.got.find((m) => m.event === "conversation_updated");
      expect(e.data).toMatchObject({ id: c.id, labels: ["vip", "callback"], status: "pending" });
      // an inbound message, a read and an assignment are changes too
      await inbound(s1.id, "919844400002", "still there?");
      await t.request("POST", `/api/v1/inbox/conversations/${c.id}/read`, { token: agent.token });
      await t.request("PUT", `/api/v1/inbox/conversations/${c.id}/assign`, { token: agent.token, body: { userId: agent.userId } });
      await waitFor(() => mine.got.filter((m) => m.event === "conversation_updated").length >= 4, "four updates");
      const updates = mine.got.filter((m) => m.event === "conversation_updated").map((m) => m.data);
      expect(updates[1]).toMatchObject({ status: "pending", lastMessage: { preview: "still there?" } });
      expect(updates[1].unreadCount).toBeGreaterThan(0);
      expect(updates[2]).toMatchObject({ unreadCount: 0 });
      expect(updates[3]).toMatchObject({ assignee: { id: agent.userId } });
      expect(theirs.got.some((m) => m.event === "conversation_updated")).toBe(false);
    } finally {
      mine.sock.close();
      theirs.sock.close();
      await t.app.stop(true);
    }
  });
});
