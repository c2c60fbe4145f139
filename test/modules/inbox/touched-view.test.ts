import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AppEvent } from "../../../src/events/bus.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestMember, type TestWorkspace } from "../../helpers/fixtures.ts";
import { seedContacts } from "../campaigns/helpers.ts";
import { connectedSession, recordEvents, waitFor } from "../messages/helpers.ts";

// The conversation_updated of an inbound message is built from what the message's transaction
// wrote (the conversation row, the session, the contact, the message) rather than read again
// with the list's query: it must be exactly the conversation GET answers, in every case.

let t: TestApp;
let ws: TestWorkspace;
let agent: TestMember;
let session: { id: string; phone: string };
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  agent = await ws.member("agent");
  session = await connectedSession(t, ws, { name: "Front desk" });
});
afterAll(() => t.close());

/** Sends an inbound message and answers its conversation_updated and the conversation as GET reads it afterwards. */
async function inbound(m: { from: string; text: string; pushName?: string; groupId?: string }): Promise<{ event: any; got: any }> {
  const events: AppEvent[] = recordEvents(t);
  const r = await t.request("POST", `/api/sim/sessions/${session.id}/inbound`, { token: ws.owner.token, body: { type: "text", ...m } });
  expect(r.status).toBe(200);
  const messageId = r.body.data.messageId as string;
  await waitFor(() => events.some((e) => e.event === "message_received" && e.data.messageId === messageId), "message_received");
  const updates = events.filter((e) => e.event === "conversation_updated" && (e.data.lastMessage as { id: string } | null)?.id === messageId);
  expect(updates).toHaveLength(1);
  const event = updates[0]!.data;
  const got = (await t.request("GET", `/api/v1/inbox/conversations/${event.id}`, { token: ws.owner.token })).body.data;
  return { event, got };
}

test("a new contact: the event is the conversation as GET reads it", async () => {
  const { event, got } = await inbound({ from: "919855500001", text: "first words", pushName: "Asha" });
  expect(event).toEqual(got);
  expect(event).toMatchObject({ unreadCount: 1, status: "open", contact: { name: null, pushName: "Asha" }, session: { name: "Front desk", phoneNumber: session.phone } });
});

test("a contact the workspace named, a message without a push name: name and the earlier push name kept", async () => {
  await seedContacts(t, ws, 1, () => ({ phone: "919855500002", name: "Bilal Khan" }));
  await inbound({ from: "919855500002", text: "hello", pushName: "Bil" });
  const { event, got } = await inbound({ from: "919855500002", text: "again" });
  expect(event).toEqual(got);
  expect(event).toMatchObject({ unreadCount: 2, contact: { name: "Bilal Khan", pushName: "Bil" }, lastMessage: { preview: "again", direction: "inbound" } });
});

test("an assigned, labelled, closed and snoozed conversation: reopened, with its assignee and labels", async () => {
  const first = await inbound({ from: "919855500003", text: "one" });
  const id = first.event.id as string;
  expect((await t.request("PUT", `/api/v1/inbox/conversations/${id}/assign`, { token: ws.owner.token, body: { userId: agent.userId } })).status).toBe(200);
  const snooze = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
  expect((await t.request("PATCH", `/api/v1/inbox/conversations/${id}`, { token: ws.owner.token, body: { labels: ["vip"], status: "closed", snoozedUntil: snooze } })).status).toBe(200);
  await t.request("POST", `/api/v1/inbox/conversations/${id}/read`, { token: ws.owner.token });
  const { event, got } = await inbound({ from: "919855500003", text: "two" });
  expect(event).toEqual(got);
  expect(event).toMatchObject({ status: "open", snoozedUntil: null, labels: ["vip"], unreadCount: 1, assignee: { id: agent.userId, email: agent.email, name: expect.any(String) } });
  expect(event.lastReadAt).not.toBeNull();
});

test("a group's conversation: the event names the group and its members, as GET does", async () => {
  expect((await t.request("PATCH", `/api/v1/chatapp/${session.id}`, { token: ws.owner.token, body: { settings: { groups: true } } })).status).toBe(200);
  const g = await t.request("POST", `/api/sim/sessions/${session.id}/groups`, { token: ws.owner.token, body: { name: "Book club", participants: ["919855500004", "919855500005"] } });
  expect(g.status).toBe(201);
  const { event, got } = await inbound({ groupId: g.body.data.id, from: "919855500004", text: "hi all", pushName: "Dee" });
  expect(event).toEqual(got);
  expect(event).toMatchObject({ groupId: g.body.data.id, groupName: "Book club", contact: null });
});
