import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { connectedSession, drain, recordEvents, waitFor } from "../messages/helpers.ts";
import { png } from "../media/samples.ts";
import { createHook, webhookApp } from "../webhooks/helpers.ts";

// Group chats end to end on the sim network: the session setting, the sim's groups, inbound
// group messages in one conversation, replies to the group, webhooks with groupId and participant.

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let rx: Receiver;
let session: { id: string; phone: string };
const members = ["919811100001", "919811100002", "919811100003"];

beforeAll(async () => {
  rx = startReceiver();
  t = await webhookApp({ sendMinGapMs: 0, sendJitterMs: 0 });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  session = await connectedSession(t, ws);
  await waitFor(async () => (await t.request("GET", `/api/v1/chatapp/${session.id}`, { token: ws.owner.token })).body.data?.status === "connected", "connected");
});
afterAll(async () => {
  rx.stop();
  await t.close();
});

const owner = () => ({ token: ws.owner.token });
const setGroups = (id: string, groups: boolean, token = ws.owner.token) => t.request("PATCH", `/api/v1/chatapp/${id}`, { token, body: { settings: { groups } } });
const createGroup = async (sessionId: string, name: string, participants = members) => {
  const r = await t.request("POST", `/api/sim/sessions/${sessionId}/groups`, { token: ws.owner.token, body: { name, participants } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; name: string; participants: string[] };
};
const groupInbound = (sessionId: string, groupId: string, from: string, pushName: string, text: string) =>
  t.request("POST", `/api/sim/sessions/${sessionId}/inbound`, { token: ws.owner.token, body: { groupId, from, pushName, text } });

test("the groups setting is off by default, and owner or admin turn it on; agents and viewers may not", async () => {
  const before = await t.request("GET", `/api/v1/chatapp/${session.id}`, owner());
  expect(before.body.data.settings).toEqual({ groups: false });
  for (const role of ["agent", "viewer"] as const) {
    const m = await ws.member(role);
    const r = await setGroups(session.id, true, m.token);
    expect(r.status).toBe(403);
    expect(r.body.success).toBe(false);
  }
  const admin = await ws.member("admin");
  const r = await setGroups(session.id, true, admin.token);
  expect(r.status).toBe(200);
  expect(r.body.data.settings).toEqual({ groups: true });
  expect((await t.request("GET", `/api/v1/chatapp/${session.id}`, owner())).body.data.settings).toEqual({ groups: true });
});

test("PATCH refuses bad settings (400 naming the field) and another workspace's session (404), changing nothing", async () => {
  const bad = await t.request("PATCH", `/api/v1/chatapp/${session.id}`, { token: ws.owner.token, body: { settings: { groups: "yes" } } });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body.errors)).toContain("groups");
  const unknown = await t.request("PATCH", `/api/v1/chatapp/${session.id}`, { token: ws.owner.token, body: { settings: { colour: "red" } } });
  expect(unknown.status).toBe(400);
  const foreign = await setGroups(session.id, false, other.owner.token);
  expect(foreign.status).toBe(404);
  expect((await t.request("GET", `/api/v1/chatapp/${session.id}`, owner())).body.data.settings).toEqual({ groups: true });
});

test("three members write in a group: one group conversation, each message with its sender; a reply goes to the group; webhooks carry groupId and participant", async () => {
  expect((await setGroups(session.id, true)).status).toBe(200);
  const hook = await createHook(t, ws, `${rx.url}/groups`, ["message_received", "message_sent"]);
  expect(hook.id).toBeTruthy();
  const group = await createGroup(session.id, "Book club");
  expect(group.id).toMatch(/^\d+@g\.us$/);

  const listed = await t.request("GET", `/api/v1/chatapp/${session.id}/groups`, owner());
  expect(listed.status).toBe(200);
  expect(listed.body.data).toEqual([{ id: group.id, name: "Book club", participants: members }]);

  const names = ["Asha", "Ben", "Chitra"];
  for (let i = 0; i < 3; i++) {
    const r = await groupInbound(session.id, group.id, members[i]!, names[i]!, `hello from ${names[i]}`);
    expect(r.status).toBe(200);
    expect(r.body.data.messageId).toBeTruthy();
  }

  const list = await t.request("GET", `/api/v1/inbox/conversations?sessionId=${session.id}`, owner());
  const convs = list.body.data.filter((c: any) => c.groupId === group.id);
  expect(convs.length).toBe(1);
  const conv = convs[0];
  expect(conv).toMatchObject({ groupId: group.id, groupName: "Book club", participants: members, phone: group.id, contact: null, unreadCount: 3 });

  const thread = await t.request("GET", `/api/v1/inbox/conversations/${conv.id}/messages`, owner());
  const inbound = thread.body.data.slice().reverse();
  expect(inbound.map((m: any) => [m.from, m.participant, m.participantName, m.groupId, m.body])).toEqual(
    names.map((n, i) => [members[i], members[i], n, group.id, `hello from ${n}`]),
  );
  // group members are not made contacts of the workspace
  const contacts = await t.deps.db.prepare("SELECT phone FROM contacts WHERE workspace_id = ?").all(ws.id);
  expect(contacts).toEqual([]);

  // a reply to the group: text and media
  const events = recordEvents(t);
  const text = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, groupId: group.id, type: "text", body: "welcome all" } });
  expect(text.status).toBe(202);
  expect(text.body.data).toMatchObject({ to: group.id, status: "queued" });
  const media = await t.request("POST", "/api/v1/messages/send", {
    token: ws.owner.token,
    body: { session_id: session.id, groupId: group.id, type: "image", media: Buffer.from(png(2, 2)).toString("base64"), mimeType: "image/png", body: "a picture" },
  });
  expect(media.status).toBe(202);
  await drain(t);
  const toGroup = t.sim.sent.filter((s) => s.sessionId === session.id && s.message.to === group.id);
  expect(toGroup.map((s) => [s.message.type, s.message.text])).toEqual([["text", "welcome all"], ["image", "a picture"]]);
  const sentEvents = events.filter((e) => e.event === "message_sent");
  expect(sentEvents.map((e) => e.data.groupId)).toEqual([group.id, group.id]);
  const after = (await t.request("GET", `/api/v1/inbox/conversations/${conv.id}/messages`, owner())).body.data;
  expect(after.length).toBe(5);
  expect(after[0]).toMatchObject({ direction: "outbound", to: group.id, groupId: group.id, participant: null });

  // the message list filters by group
  const byGroup = await t.request("GET", `/api/v1/messages?groupId=${encodeURIComponent(group.id)}`, owner());
  expect(byGroup.status).toBe(200);
  expect(byGroup.body.data.length).toBe(5);
  const mixed = await t.request("GET", `/api/v1/messages?groupId=${encodeURIComponent(group.id)}&phone=${members[0]}`, owner());
  expect(mixed.status).toBe(400);
  expect(mixed.body.errors.groupId).toBeDefined();

  // the webhook receiver
  await waitFor(async () => {
    await t.services.webhooks.runDue();
    return rx.received.filter((r) => r.path === "/groups").length >= 5;
  }, "webhook deliveries");
  const bodies = rx.received.filter((r) => r.path === "/groups").map((r) => JSON.parse(r.body));
  const got = bodies.filter((b) => b.event === "message_received").map((b) => b.data);
  expect(got.map((d) => [d.groupId, d.participant, d.from, d.pushName]).sort()).toEqual(names.map((n, i) => [group.id, members[i], members[i], n]).sort());
  expect(bodies.filter((b) => b.event === "message_sent").every((b) => b.data.groupId === group.id && b.data.to === group.id)).toBe(true);
});

test("with the setting off, a group's messages are dropped; a person's message is kept", async () => {
  const off = await connectedSession(t, ws);
  const group = await createGroup(off.id, "Muted");
  const r = await groupInbound(off.id, group.id, members[0]!, "Asha", "nobody keeps this");
  expect(r.status).toBe(200);
  expect(r.body.data.messageId).toBeNull();
  const person = await t.request("POST", `/api/sim/sessions/${off.id}/inbound`, { token: ws.owner.token, body: { from: members[1], text: "direct" } });
  expect(person.body.data.messageId).toBeTruthy();
  await Bun.sleep(20); // the dropped message had every chance to be stored
  const rows = (await t.deps.db.prepare("SELECT phone, body FROM messages WHERE session_id = ?").all(off.id)) as { phone: string; body: string }[];
  expect(rows).toEqual([{ phone: members[1]!, body: "direct" }]);
});

test("the groups route: 400 for a bad id, 404 for another workspace's session, readable by a viewer", async () => {
  expect((await t.request("GET", `/api/v1/chatapp/not-a-uuid/groups`, owner())).status).toBe(400);
  expect((await t.request("GET", `/api/v1/chatapp/${session.id}/groups`, { token: other.owner.token })).status).toBe(404);
  expect((await t.request("GET", `/api/v1/chatapp/${Bun.randomUUIDv7()}/groups`, owner())).status).toBe(404);
  const viewer = await ws.member("viewer");
  const r = await t.request("GET", `/api/v1/chatapp/${session.id}/groups`, { token: viewer.token });
  expect(r.status).toBe(200);
  expect(r.body.data.length).toBeGreaterThan(0);
});

test("a send's groupId: 400 with to, 400 when malformed, 404 for a group the session is not in or another workspace's", async () => {
  const group = await createGroup(session.id, "Second");
  const send = (body: Record<string, unknown>, token = ws.owner.token) => t.request("POST", "/api/v1/messages/send", { token, body: { session_id: session.id, type: "text", body: "hi", ...body } });
  const both = await send({ groupId: group.id, to: members[0] });
  expect(both.status).toBe(400);
  expect(both.body.errors.groupId).toBeDefined();
  const neither = await send({});
  expect(neither.status).toBe(400);
  expect(neither.body.errors.to).toBeDefined();
  const malformed = await send({ groupId: "book club" });
  expect(malformed.status).toBe(400);
  expect(malformed.body.errors.groupId).toBeDefined();
  expect((await send({ groupId: "120363000000000000@g.us" })).status).toBe(404);
  // another workspace's session with the same group id answers 404 for the session
  const foreign = await t.request("POST", "/api/v1/messages/send", { token: other.owner.token, body: { session_id: session.id, groupId: group.id, type: "text", body: "x" } });
  expect(foreign.status).toBe(404);
  const queued = (await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE phone = '120363000000000000@g.us'").get()) as { n: number };
  expect(queued.n).toBe(0);
});

test("the sim's group routes: 404 for an unknown group on inbound or another workspace's session, 400 for bad members", async () => {
  const r = await groupInbound(session.id, "120363999999999999@g.us", members[0]!, "Asha", "x");
  expect(r.status).toBe(404);
  const bad = await t.request("POST", `/api/sim/sessions/${session.id}/groups`, { token: ws.owner.token, body: { name: "x", participants: ["abc"] } });
  expect(bad.status).toBe(400);
  const foreign = await t.request("POST", `/api/sim/sessions/${session.id}/groups`, { token: other.owner.token, body: { name: "x", participants: members } });
  expect(foreign.status).toBe(404);
});

test("STOP said in a group opts nobody out, even a member who is a contact; a group member is not made or changed as a contact", async () => {
  const s = await connectedSession(t, ws);
  expect((await setGroups(s.id, true)).status).toBe(200);
  const person = "919811100099";
  const direct = await t.request("POST", `/api/sim/sessions/${s.id}/inbound`, { token: ws.owner.token, body: { from: person, pushName: "Direct name", text: "hi" } });
  expect(direct.body.data.messageId).toBeTruthy();
  const group = await createGroup(s.id, "Stoppers", [person]);
  const r = await groupInbound(s.id, group.id, person, "Group name", "STOP");
  expect(r.body.data.messageId).toBeTruthy();
  const contact = await t.deps.db.prepare('SELECT opted_out AS "optedOut", push_name AS "pushName" FROM contacts WHERE workspace_id = ? AND phone = ?').get(ws.id, person);
  expect(contact).toEqual({ optedOut: 0, pushName: "Direct name" });
  // the same word said to the business directly does opt out
  await t.request("POST", `/api/sim/sessions/${s.id}/inbound`, { token: ws.owner.token, body: { from: person, text: "STOP" } });
  const after = (await t.deps.db.prepare('SELECT opted_out AS "optedOut" FROM contacts WHERE workspace_id = ? AND phone = ?').get(ws.id, person)) as { optedOut: number };
  expect(Number(after.optedOut)).toBe(1);
});
