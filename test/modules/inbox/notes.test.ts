import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestMember, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { createHook } from "../webhooks/helpers.ts";
import { connectedSession, drain, recordEvents, waitFor } from "../messages/helpers.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Internal notes: in the thread with their author, never sent, never in a webhook.

let t: TestApp;
let rx: Receiver;
let ws: TestWorkspace;
let other: TestWorkspace;
let agent: TestMember;
let viewer: TestMember;
let s1: { id: string; phone: string };
let conversationId: string;
const dataDir = mkdtempSync(join(tmpdir(), "parley-notes-"));
const PHONE = "919866600001";

const addNote = (id: string, body: unknown, token = agent.token) => t.request("POST", `/api/v1/inbox/conversations/${id}/notes`, { token, body });
const thread = (id: string, q = "", token = ws.owner.token) => t.request("GET", `/api/v1/inbox/conversations/${id}/messages${q}`, { token });

beforeAll(async () => {
  rx = startReceiver();
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, webhookAllowHttp: true, webhookAllowPrivate: true }, sim: { dataDir } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  agent = await ws.member("agent");
  viewer = await ws.member("viewer");
  s1 = await connectedSession(t, ws);
  await createHook(t, ws, `${rx.url}/hook`, ["message_received", "message_sent", "message_delivered", "message_read", "message_failed"]);
  const events = recordEvents(t);
  t.sim.inbound(s1.id, { from: PHONE, type: "text", text: "is the blue one in stock?" });
  await waitFor(() => events.some((e) => e.event === "message_received"), "message_received");
  conversationId = (await t.request("GET", "/api/v1/inbox/conversations", { token: ws.owner.token })).body.data[0].id;
});
afterAll(async () => {
  rx.stop();
  await t.close();
});

describe("notes", () => {
  test("a note joins the thread with type note and its author; nothing is sent and no webhook hears of it", async () => {
    const r = await addNote(conversationId, { body: "  VIP customer: check the warehouse first  " });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      conversationId,
      sessionId: s1.id,
      type: "note",
      body: "VIP customer: check the warehouse first",
      author: { id: agent.userId, name: "Test agent", email: agent.email },
    });
    // a reply after it: the thread has both, newest first
    t.clock.advance(5);
    const sent = await t.request("POST", "/api/v1/messages/send", { token: agent.token, body: { session_id: s1.id, to: PHONE, body: "Yes, it is!" } });
    expect(sent.status).toBe(202);
    await drain(t);
    const th = await thread(conversationId);
    expect(th.body.data.map((m: { type: string; body: string }) => [m.type, m.body])).toEqual([
      ["text", "Yes, it is!"],
      ["note", "VIP customer: check the warehouse first"],
      ["text", "is the blue one in stock?"],
    ]);
    // webhooks: every message event went out, and none of them (nor anything else) carries the note
    while ((await t.services.webhooks.runDue()) > 0);
    await waitFor(() => rx.received.some((x) => JSON.parse(x.body).event === "message_sent"), "message_sent delivery");
    expect(rx.received.map((x) => JSON.parse(x.body).event).sort()).toEqual(["message_received", "message_sent"]);
    expect(rx.received.some((x) => x.body.includes("warehouse"))).toBe(false);
    const rows = (await t.deps.db.prepare("SELECT payload FROM webhook_deliveries").all()) as { payload: string }[];
    expect(rows.some((x) => x.payload.includes("warehouse"))).toBe(false);
    // the network got the reply only
    expect(readSimSent(dataDir).map((x: { text?: string }) => x.text)).toEqual(["Yes, it is!"]);
    // notes are no messages: the message lists do not show them
    const all = await t.request("GET", "/api/v1/messages?limit=100", { token: ws.owner.token });
    expect(all.body.data.some((m: { body: string }) => m.body?.includes("warehouse"))).toBe(false);
    // the conversation's last message is still the last real message
    const c = await t.request("GET", `/api/v1/inbox/conversations/${conversationId}`, { token: ws.owner.token });
    expect(c.body.data.lastMessage.preview).toBe("Yes, it is!");
  });

  test("thread pages merge notes and messages by time with cursors both ways", async () => {
    for (let i = 0; i < 3; i++) {
      t.clock.advance(5);
      expect((await addNote(conversationId, { body: `note ${i}` })).status).toBe(201);
    }
    const whole = (await thread(conversationId, "?limit=100")).body.data.map((m: { id: string }) => m.id);
    expect(whole.length).toBe(6);
    const seen: string[] = [];
    let cursor: string | null = null;
    let last: any;
    do {
      last = await thread(conversationId, `?limit=2${cursor ? `&before=${cursor}` : ""}`);
      seen.push(...last.body.data.map((m: { id: string }) => m.id));
      cursor = last.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(whole);
    const back = await thread(conversationId, `?limit=2&after=${whole[4]}`);
    expect(back.body.data.map((m: { id: string }) => m.id)).toEqual([whole[2], whole[3]]);
    expect(back.body.pagination.hasMore).toBe(true);
  });

  test("a note announces the conversation over the real-time events, not to webhooks", async () => {
    const events = recordEvents(t);
    await addNote(conversationId, { body: "called them back" });
    await waitFor(() => events.some((e) => e.event === "conversation_updated"), "conversation_updated");
    expect(events.map((e) => e.event)).toEqual(["conversation_updated"]);
    expect(Number(((await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE payload LIKE ?").get("%conversation_updated%")) as { n: number }).n)).toBe(0);
  });

  test("bad bodies are 400 naming body; viewers 403; another workspace's conversation 404", async () => {
    for (const body of [{}, { body: "   " }, { body: "x".repeat(4097) }, { body: 7 }]) {
      const r = await addNote(conversationId, body);
      expect(r.status).toBe(400);
      expect(r.body.errors.body).toBeDefined();
    }
    expect((await addNote("nope", { body: "x" })).body.errors.id).toBeDefined();
    const v = await addNote(conversationId, { body: "from a viewer" }, viewer.token);
    expect(v.status).toBe(403);
    const foreign = await addNote(conversationId, { body: "from elsewhere" }, other.owner.token);
    expect(foreign.status).toBe(404);
    expect((await thread(conversationId, "", other.owner.token)).status).toBe(404);
    const n = (await t.deps.db.prepare("SELECT count(*) AS n FROM conversation_notes WHERE body LIKE 'from %'").get()) as { n: number };
    expect(Number(n.n)).toBe(0);
    // viewers read the notes in the thread
    const seen = await thread(conversationId, "?limit=100", viewer.token);
    expect(seen.body.data.filter((m: { type: string }) => m.type === "note").length).toBe(5);
  });
});
