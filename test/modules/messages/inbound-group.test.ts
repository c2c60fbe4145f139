import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { createHook, deliveries } from "../webhooks/helpers.ts";
import { connectedSession, recordEvents, waitFor } from "./helpers.ts";

// Inbound messages that arrive together are stored in one group commit: what each one writes
// (its row, its webhook delivery, its events, its text in the search index) is exactly what it
// writes alone, a repeat among them is stored once, and their order is kept (both engines).

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
beforeAll(async () => {
  t = await createTestApp({ config: { webhookAllowHttp: true, webhookAllowPrivate: true } });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
});
afterAll(() => t.close());

test("ten messages in one turn (one of them twice): nine stored in order, one delivery and one message_received each, every text searchable", async () => {
  const hook = await createHook(t, ws, "http://127.0.0.1:9/hook", ["message_received"]);
  const events = recordEvents(t);
  const texts = Array.from({ length: 9 }, (_, i) => `grouped note ${i} kiwi${i}`);
  // one turn of the event loop: the sim hands them to Parley together
  const ids = texts.map((text, i) => t.sim.inbound(session.id, { from: `91982230000${i}`, type: "text", text, ...(i === 4 ? { networkMessageId: "SIMGROUPREPEAT" } : {}) }));
  t.sim.inbound(session.id, { networkMessageId: "SIMGROUPREPEAT", from: "919822300004", type: "text", text: texts[4]! });
  const received = () => events.filter((e) => e.event === "message_received");
  await waitFor(() => received().length >= 9, "nine message_received");
  await Bun.sleep(20);
  expect(received().map((e) => e.data.text)).toEqual(texts);

  const rows = (await t.deps.db
    .prepare("SELECT id, body, network_message_id AS nid FROM messages WHERE workspace_id = ? AND direction = 'inbound' ORDER BY created_at, id")
    .all(ws.id)) as { id: string; body: string; nid: string }[];
  expect(rows.map((r) => r.body)).toEqual(texts);
  expect(rows.map((r) => r.nid)).toEqual(ids);
  expect(received().map((e) => e.data.messageId)).toEqual(rows.map((r) => r.id));

  const d = await deliveries(t, hook.id);
  expect(d).toHaveLength(9);
  const byMessage = new Map(d.map((x) => [JSON.parse(x.payload).data.messageId as string, x]));
  for (const [i, r] of rows.entries()) {
    const x = byMessage.get(r.id)!;
    expect(x).toMatchObject({ workspace_id: ws.id, event_type: "message_received", status: "pending", attempts: 0, is_test: 0, error: null });
    expect(Number(x.next_attempt_at)).toBeGreaterThanOrEqual(Number(x.created_at));
    expect(JSON.parse(x.payload)).toMatchObject({ event: "message_received", data: { text: texts[i], sessionId: session.id } });
    expect(x.event_id).toBe(received()[i]!.id);
  }
  // each conversation told once, with its message
  const updates = events.filter((e) => e.event === "conversation_updated");
  expect(updates.map((e) => (e.data.lastMessage as { id: string }).id)).toEqual(rows.map((r) => r.id));

  for (const [i, text] of texts.entries()) {
    const r = await t.request("GET", `/api/v1/inbox/search?q=kiwi${i}`, { token: ws.owner.token });
    expect(r.body.data.map((m: { body: string }) => m.body)).toEqual([text]);
  }
  if (t.deps.db.engine === "sqlite") await t.deps.db.prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)").run();
});

test("one turn from a new sender and a known one, with a repeat of a message stored before: one contact each, push names in order, the repeat stored once", async () => {
  const events = recordEvents(t);
  // stored before the group: a known contact (push name "Old") and one of its messages
  t.sim.inbound(session.id, { networkMessageId: "SIMBEFOREGROUP", from: "919822310001", pushName: "Old", type: "text", text: "before the group" });
  await waitFor(() => events.some((e) => e.event === "message_received" && e.data.text === "before the group"), "the first message");
  const texts = ["new 1", "known 1", "new 2", "known 2", "new 3"];
  // one turn: the new sender three times (its contact made by the first), the known one twice (a push name, then none), the earlier message again
  t.sim.inbound(session.id, { from: "919822310002", pushName: "Newcomer", type: "text", text: texts[0]! });
  t.sim.inbound(session.id, { from: "919822310001", pushName: "Renamed", type: "text", text: texts[1]! });
  t.sim.inbound(session.id, { networkMessageId: "SIMBEFOREGROUP", from: "919822310001", pushName: "Old", type: "text", text: "before the group" });
  t.sim.inbound(session.id, { from: "919822310002", type: "text", text: texts[2]! });
  t.sim.inbound(session.id, { from: "919822310001", type: "text", text: texts[3]! });
  t.sim.inbound(session.id, { from: "919822310002", pushName: "Newcomer Two", type: "text", text: texts[4]! });
  const received = () => events.filter((e) => e.event === "message_received" && texts.includes(e.data.text as string));
  await waitFor(() => received().length >= 5, "five message_received");
  await Bun.sleep(30);
  expect(received().map((e) => e.data.text)).toEqual(texts);
  expect(received().map((e) => e.data.pushName)).toEqual(["Newcomer", "Renamed", null, null, "Newcomer Two"]);

  const before = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE workspace_id = ? AND network_message_id = 'SIMBEFOREGROUP'").get(ws.id);
  expect(Number(before!.n)).toBe(1);
  const contacts = (await t.deps.db
    .prepare("SELECT phone, push_name AS \"pushName\" FROM contacts WHERE workspace_id = ? AND phone IN ('919822310001', '919822310002') ORDER BY phone")
    .all(ws.id)) as { phone: string; pushName: string }[];
  expect(contacts).toEqual([
    { phone: "919822310001", pushName: "Renamed" },
    { phone: "919822310002", pushName: "Newcomer Two" },
  ]);
  // every conversation event names the contact as it was after its message, and the unread count goes up one by one
  const updates = events.filter((e) => e.event === "conversation_updated" && texts.includes((e.data.lastMessage as { body: string }).body));
  expect(updates.map((e) => (e.data.contact as { pushName: string | null } | null)?.pushName)).toEqual(["Newcomer", "Renamed", "Newcomer", "Renamed", "Newcomer Two"]);
  expect(updates.map((e) => e.data.unreadCount)).toEqual([1, 2, 2, 3, 3]);
  // as GET reads them
  for (const phone of ["919822310001", "919822310002"]) {
    const r = await t.request("GET", `/api/v1/contacts?search=${phone}`, { token: ws.owner.token });
    expect(r.body.data).toHaveLength(1);
  }
});

test("new senders in one turn with room for two contacts: the first two get one, every message is stored (the quota exact within a group)", async () => {
  const free = await createWorkspace(t, { status: "free", planId: "free" });
  const s = await connectedSession(t, free);
  const limit = (await t.deps.db.prepare<{ limits: string }>("SELECT limits FROM plans WHERE id = 'free'").get())!.limits;
  const room = 2;
  const ins = t.deps.db.prepare("INSERT INTO contacts (id, workspace_id, phone, created_at, updated_at) VALUES (?, ?, ?, 0, 0)");
  await t.deps.db.tx(async () => {
    for (let i = 0; i < JSON.parse(limit).contacts - room; i++) await ins.run(Bun.randomUUIDv7(), free.id, `91710000${String(i).padStart(4, "0")}`);
  });
  const events = recordEvents(t);
  const senders = ["919822310001", "919822310002", "919822310001", "919822310003", "919822310004"];
  senders.forEach((from, i) => t.sim.inbound(s.id, { from, type: "text", text: `room ${i}` }));
  await waitFor(() => events.filter((e) => e.event === "message_received" && e.workspaceId === free.id).length === senders.length, "five message_received");
  const made = (await t.deps.db
    .prepare("SELECT phone, push_name AS \"pushName\" FROM contacts WHERE workspace_id = ? AND phone LIKE '9198223100%' ORDER BY phone")
    .all(free.id)) as { phone: string }[];
  expect(made.map((c) => c.phone)).toEqual(["919822310001", "919822310002"]);
  const total = (await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(free.id))!.n;
  expect(Number(total)).toBe(JSON.parse(limit).contacts);
  const stored = (await t.deps.db.prepare("SELECT body, phone FROM messages WHERE workspace_id = ? ORDER BY created_at, id").all(free.id)) as { body: string; phone: string }[];
  expect(stored.map((m) => m.body)).toEqual(senders.map((_, i) => `room ${i}`));
  const convs = (await t.deps.db.prepare("SELECT phone, contact_id AS \"contactId\" FROM conversations WHERE workspace_id = ? ORDER BY phone").all(free.id)) as { phone: string; contactId: string | null }[];
  expect(convs.map((c) => [c.phone, c.contactId !== null])).toEqual([
    ["919822310001", true],
    ["919822310002", true],
    ["919822310003", false],
    ["919822310004", false],
  ]);
});
