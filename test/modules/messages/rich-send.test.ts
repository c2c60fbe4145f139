import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, waitFor } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let s1: { id: string; phone: string };
let s2: { id: string; phone: string };
let theirs: { id: string; phone: string };
let question: string;
let foreignMessage: string;
const asha = "919811144444";

async function inbound(ws: TestWorkspace, session: string, from: string, message: Record<string, unknown>): Promise<string> {
  const events = recordEvents(t);
  t.sim.inbound(session, { from, type: "text", ...message });
  const e = await waitFor(() => events.find((e) => e.event === "message_received"), "message_received");
  return (e.data as { messageId: string }).messageId;
}
const send = (body: Record<string, unknown>, token = ws.owner.token) => t.request("POST", "/api/v1/messages/send", { token, body: { session_id: s1.id, to: asha, ...body } });
const sentOf = (id: string) => t.request("GET", `/api/v1/messages/${id}`, { token: ws.owner.token });

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { autoReceipts: false } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  s1 = await connectedSession(t, ws);
  s2 = await connectedSession(t, ws);
  theirs = await connectedSession(t, other);
  question = await inbound(ws, s1.id, asha, { text: "open on Sunday?" });
  foreignMessage = await inbound(other, theirs.id, asha, { text: "hello other shop" });
});
afterAll(() => t.close());

describe("richer sends through the sim network", () => {
  test("reply, reaction, location and contact card: stored, shown and handed to the network", async () => {
    const reply = await send({ body: "yes, 10 to 2", replyTo: question });
    const reaction = await send({ type: "reaction", reaction: { messageId: question, emoji: "👍" } });
    const location = await send({ type: "location", location: { latitude: 18.52, longitude: 73.85 }, replyTo: question });
    const card = await send({ type: "contact", contact: { name: "Front desk", phones: ["919811100000", "+91 98111 00001"] } });
    for (const r of [reply, reaction, location, card]) expect(r.status).toBe(202);
    expect(reaction.body.data).toMatchObject({ status: "queued", type: "reaction" });
    await drain(t);
    const network = t.sim.sent.filter((s) => s.sessionId === s1.id).map((s) => s.message);
    const questionNetworkId = (await sentOf(question)).body.data.networkMessageId;
    expect(network[0]).toMatchObject({ type: "text", text: "yes, 10 to 2", quoted: { networkMessageId: questionNetworkId, fromMe: false, text: "open on Sunday?" } });
    expect(network[1]).toMatchObject({ type: "reaction", reaction: { networkMessageId: questionNetworkId, fromMe: false, emoji: "👍" } });
    expect(network[2]).toMatchObject({ type: "location", location: { latitude: 18.52, longitude: 73.85, name: null, address: null }, quoted: { networkMessageId: questionNetworkId } });
    expect(network[3]).toMatchObject({ type: "contact", contacts: [{ name: "Front desk", phones: ["919811100000", "919811100001"] }] });

    expect((await sentOf(reply.body.data.id)).body.data).toMatchObject({ type: "text", replyTo: question, payload: null, status: "sent" });
    expect((await sentOf(reaction.body.data.id)).body.data).toMatchObject({ body: "👍", payload: { messageId: question, emoji: "👍", removed: false }, replyTo: null });
    expect((await sentOf(location.body.data.id)).body.data).toMatchObject({ body: "Location: 18.52, 73.85", replyTo: question });
    expect((await sentOf(card.body.data.id)).body.data.body).toBe("Contact: Front desk +919811100000 +919811100001");
  });

  test("an empty emoji takes a reaction back", async () => {
    const r = await send({ type: "reaction", reaction: { messageId: question, emoji: "" } });
    expect(r.status).toBe(202);
    await drain(t);
    expect((await sentOf(r.body.data.id)).body.data.payload).toEqual({ messageId: question, emoji: "", removed: true });
    expect(t.sim.sent.at(-1)!.message.reaction!.emoji).toBe("");
  });

  test("received reactions, locations and contact cards are stored and listed in the conversation", async () => {
    const qNet = (await sentOf(question)).body.data.networkMessageId;
    const id = await inbound(ws, s1.id, asha, { type: "reaction", text: "❤️", payload: { emoji: "❤️", messageId: qNet, fromMe: false, removed: false } });
    const loc = await inbound(ws, s1.id, asha, { type: "location", text: "Location: 1, 2", payload: { latitude: 1, longitude: 2, name: null, address: null } });
    expect((await sentOf(id)).body.data).toMatchObject({ direction: "inbound", type: "reaction", body: "❤️", payload: { emoji: "❤️" } });
    expect((await sentOf(loc)).body.data).toMatchObject({ type: "location", payload: { latitude: 1, longitude: 2 } });
  });

  test("replyTo and reaction.messageId: 404 for another workspace's message, 400 for another conversation", async () => {
    const foreignReply = await send({ body: "hi", replyTo: foreignMessage });
    expect(foreignReply.status).toBe(404);
    const foreignReaction = await send({ type: "reaction", reaction: { messageId: foreignMessage, emoji: "👍" } });
    expect(foreignReaction.status).toBe(404);
    expect((await send({ body: "hi", replyTo: Bun.randomUUIDv7() })).status).toBe(404);
    const otherNumber = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s2.id, to: asha, body: "hi", replyTo: question } });
    expect(otherNumber.status).toBe(400);
    expect(Object.keys(otherNumber.body.errors)).toEqual(["replyTo"]);
    const otherPerson = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s1.id, to: "919811155555", type: "reaction", reaction: { messageId: question, emoji: "👍" } } });
    expect(otherPerson.status).toBe(400);
    expect(Object.keys(otherPerson.body.errors)).toEqual(["reaction.messageId"]);
  });

  test("bad input: 400 naming the field, nothing queued", async () => {
    const before = (await t.request("GET", `/api/v1/messages?sessionId=${s1.id}&limit=100`, { token: ws.owner.token })).body.data.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ body: "x", replyTo: "nope" }, "replyTo"],
      [{ type: "reaction" }, "reaction"],
      [{ type: "reaction", reaction: { messageId: question } }, "reaction.emoji"],
      [{ type: "reaction", reaction: { messageId: question, emoji: "👍" }, replyTo: question }, "replyTo"],
      [{ type: "reaction", reaction: { messageId: question, emoji: "👍" }, body: "x" }, "body"],
      [{ type: "location", location: { latitude: 91, longitude: 0 } }, "location.latitude"],
      [{ type: "location", location: { latitude: 0, longitude: "east" } }, "location.longitude"],
      [{ type: "contact", contact: { name: "", phones: ["919811100000"] } }, "contact.name"],
      [{ type: "contact", contact: { name: "A", phones: [] } }, "contact.phones"],
      [{ type: "contact", contact: { name: "A", phones: ["12"] } }, "contact.phones.0"],
      [{ body: "x", location: { latitude: 0, longitude: 0 } }, "location"],
    ];
    for (const [body, field] of cases) {
      const r = await send(body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(r.body.errors)).toContain(field);
    }
    const after = (await t.request("GET", `/api/v1/messages?sessionId=${s1.id}&limit=100`, { token: ws.owner.token })).body.data.length;
    expect(after).toBe(before);
  });

  test("roles: agents send richer messages, viewers may not", async () => {
    const agent = await ws.member("agent");
    expect((await send({ type: "reaction", reaction: { messageId: question, emoji: "👌" } }, agent.token)).status).toBe(202);
    const viewer = await ws.member("viewer");
    expect((await send({ type: "reaction", reaction: { messageId: question, emoji: "👌" } }, viewer.token)).status).toBe(403);
    await drain(t);
  });
});
