import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, waitFor } from "../messages/helpers.ts";
import { png } from "../media/samples.ts";
import { REPLY_JOB, sendReply, type ReplyJob } from "../../../src/modules/automations/job.ts";

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
let seq = 0;
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
});
afterAll(() => t.close());

/** A fresh owner token: the tests move the clock past a token's life. */
const owner = (w: TestWorkspace = ws) => accessToken(t, w.owner.userId, w.id, "owner");
const newPhone = () => `91977${String(100_000 + ++seq).padStart(7, "0")}`;

async function create(body: Record<string, unknown>, w: TestWorkspace = ws): Promise<string> {
  const r = await t.request("POST", "/api/v1/automations", { token: await owner(w), body });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

/** Delivers an inbound text, waits for it to be stored, runs the jobs; returns the texts the sim sent to `from` since. */
async function inbound(from: string, text: string, s = session): Promise<string[]> {
  const before = t.sim.sent.length;
  const events = recordEvents(t);
  t.sim.inbound(s.id, { from, type: "text", text, pushName: "Asha" });
  await waitFor(() => events.some((e) => e.event === "message_received" && e.data.from === from), "message_received");
  // past the session's gap between sends (twice: a message queued before goes first)
  for (let i = 0; i < 2; i++) {
    t.clock.advance(10_000);
    await drain(t);
  }
  return t.sim.sent.slice(before).filter((m) => m.message.to === from).map((m) => m.message.text ?? "");
}

async function clear() {
  for (const a of (await t.request("GET", "/api/v1/automations", { token: await owner() })).body.data) await t.request("DELETE", `/api/v1/automations/${a.id}`, { token: await owner() });
}

test("a keyword reply answers PRICE (any case, trimmed) once per cooldown; the message carries automationId", async () => {
  await clear();
  const id = await create({ name: "Prices", trigger: { type: "keyword", keywords: ["price"], match: "exact" }, reply: { body: "Hi {{name|there}}, prices at example.com" }, cooldownMinutes: 60 });
  const phone = newPhone();
  const events = recordEvents(t);
  expect(await inbound(phone, "  PRICE ")).toEqual(["Hi Asha, prices at example.com"]);
  expect(await inbound(phone, "price")).toEqual([]);
  expect(await inbound(phone, "the price?")).toEqual([]); // exact: not a match
  t.clock.advance(61 * 60_000);
  expect(await inbound(phone, "Price")).toEqual(["Hi Asha, prices at example.com"]);
  const msgs = (await t.request("GET", `/api/v1/messages?phone=${phone}&direction=outbound`, { token: await owner() })).body.data;
  expect(msgs.map((m: { automationId: string }) => m.automationId)).toEqual([id, id]);
  const sent = events.filter((e) => e.event === "message_sent");
  expect(sent.map((e) => e.data.automationId)).toEqual([id, id]);
  // an ordinary send carries none
  const plain = await t.request("POST", "/api/v1/messages/send", { token: await owner(), body: { session_id: session.id, to: phone, body: "by hand" } });
  expect((await t.request("GET", `/api/v1/messages/${plain.body.data.id}`, { token: await owner() })).body.data.automationId).toBeNull();
});

test("contains matching; precedence keyword before away before welcome; at most one answer per message", async () => {
  await clear();
  await create({ name: "Welcome", trigger: { type: "welcome" }, reply: { body: "welcome" } });
  await create({ name: "Away", trigger: { type: "away", hours: {} }, reply: { body: "away" } }); // never open: always away
  await create({ name: "Hours", trigger: { type: "keyword", keywords: ["hours"], match: "contains" }, reply: { body: "9 to 5" } });
  const phone = newPhone();
  expect(await inbound(phone, "what are your HOURS today")).toEqual(["9 to 5"]);
  // the keyword is cooling down: away answers (the welcome was the first message's, now gone)
  expect(await inbound(phone, "hours?")).toEqual(["away"]);
  expect(await inbound(phone, "hello")).toEqual([]);
  const fresh = newPhone();
  expect(await inbound(fresh, "hello")).toEqual(["away"]);
});

test("welcome answers only a contact's first message ever", async () => {
  await clear();
  await create({ name: "Welcome", trigger: { type: "welcome" }, reply: { body: "Welcome {{name}}!" }, cooldownMinutes: 0 });
  const phone = newPhone();
  expect(await inbound(phone, "hi")).toEqual(["Welcome Asha!"]);
  expect(await inbound(phone, "hi again")).toEqual([]);
  t.clock.advance(30 * 86_400_000);
  expect(await inbound(phone, "back after a month")).toEqual([]);
});

test("never to an opted-out contact (a STOP is not answered either), and session scope is honoured", async () => {
  await clear();
  await create({ name: "Any", trigger: { type: "keyword", keywords: ["stop", "info"], match: "exact" }, reply: { body: "info" }, cooldownMinutes: 0 });
  const phone = newPhone();
  expect(await inbound(phone, "STOP")).toEqual([]);
  expect(await inbound(phone, "info")).toEqual([]);
  const second = await connectedSession(t, ws);
  await clear();
  await create({ name: "Only second", trigger: { type: "keyword", keywords: ["info"] }, reply: { body: "from second" }, sessionIds: [second.id], cooldownMinutes: 0 });
  const p2 = newPhone();
  expect(await inbound(p2, "info")).toEqual([]);
  expect(await inbound(p2, "info", second)).toEqual(["from second"]);
});

test("inactive automations and other workspaces' automations do not answer", async () => {
  await clear();
  const id = await create({ name: "Off", trigger: { type: "welcome" }, reply: { body: "x" }, isActive: false });
  const other = await createWorkspace(t);
  await create({ name: "Theirs", trigger: { type: "welcome" }, reply: { body: "theirs" } }, other);
  expect(await inbound(newPhone(), "hello")).toEqual([]);
  await t.request("PATCH", `/api/v1/automations/${id}`, { token: await owner(), body: { isActive: true } });
  expect(await inbound(newPhone(), "hello")).toEqual(["x"]);
});

test("a media reply: the stored image goes out with its caption; another workspace's media is refused", async () => {
  await clear();
  const fd = new FormData();
  fd.append("file", new File([png()], "menu.png", { type: "image/png" }));
  const media = await t.request("POST", "/api/v1/media", { token: await owner(), body: fd });
  expect(media.status).toBe(201);
  const other = await createWorkspace(t);
  const refused = await t.request("POST", "/api/v1/automations", { token: await owner(other), body: { name: "Menu", trigger: { type: "keyword", keywords: ["menu"] }, reply: { type: "image", mediaId: media.body.data.id } } });
  expect(refused.status).toBe(400);
  expect(Object.keys(refused.body.errors)).toEqual(["reply.mediaId"]);
  await create({ name: "Menu", trigger: { type: "keyword", keywords: ["menu"] }, reply: { type: "image", mediaId: media.body.data.id, body: "Today's menu, {{name}}" } });
  const phone = newPhone();
  expect(await inbound(phone, "MENU")).toEqual(["Today's menu, Asha"]);
  const sent = t.sim.sent.filter((m) => m.message.to === phone);
  expect(sent.map((m) => m.message.type)).toEqual(["image"]);
});

test("an answer decided before the contact opted out is not sent; a group's message is never answered", async () => {
  await clear();
  await create({ name: "Prices", trigger: { type: "keyword", keywords: ["price"] }, reply: { body: "prices" }, cooldownMinutes: 0 });
  const phone = newPhone();
  const events = recordEvents(t);
  t.sim.inbound(session.id, { from: phone, type: "text", text: "price" });
  t.sim.inbound(session.id, { from: phone, type: "text", text: "STOP" });
  await waitFor(() => events.filter((e) => e.event === "message_received" && e.data.from === phone).length === 2, "both messages");
  expect(await inbound(phone, "price")).toEqual([]);
  expect(t.sim.sent.filter((m) => m.message.to === phone)).toEqual([]);
  const decided = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM automation_replies WHERE phone = ?").get(phone);
  expect(decided!.n).toBe(1); // the first "price" was decided while the contact was still opted in

  const group = newPhone();
  await t.deps.db.tx(() =>
    t.deps.bus.publish(ws.id, "message_received", { sessionId: session.id, from: group, messageId: Bun.randomUUIDv7(), type: "text", text: "price", groupId: "120363000000000001@g.us" }),
  );
  const none = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM automation_replies WHERE phone = ?").get(group);
  expect(none!.n).toBe(0);
});

test("the send job run twice (a crash before it was marked done) queues one message", async () => {
  await clear();
  const id = await create({ name: "Prices", trigger: { type: "keyword", keywords: ["price"] }, reply: { body: "once" } });
  const phone = newPhone();
  t.sim.inbound(session.id, { from: phone, type: "text", text: "price" });
  const row = await waitFor(
    async () => (await t.deps.db.prepare<{ payload: string }>("SELECT payload FROM jobs WHERE kind = ? AND payload LIKE ?").get(REPLY_JOB, `%${phone}%`)) ?? null,
    "the reply job",
  );
  const job = JSON.parse(row.payload) as ReplyJob;
  expect(job).toMatchObject({ automationId: id, phone, sessionId: session.id });
  const first = await sendReply(t.deps, job);
  const again = await sendReply(t.deps, job);
  expect(again).toBe(first);
  await drain(t);
  const n = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE automation_id = ? AND phone = ?").get(id, phone);
  expect(n!.n).toBe(1);
  expect(t.sim.sent.filter((m) => m.message.to === phone).length).toBe(1);
});
