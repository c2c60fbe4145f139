import { afterEach, expect, test } from "bun:test";
import { NetworkError, type OutboundMessage } from "../../../src/network/driver.ts";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import { claimHeadsIfDue, queuedHeads } from "../../../src/modules/messages/claim-repo.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents } from "./helpers.ts";

// With pacing off the sender claims several heads of a session at once, sends them in order
// and commits their outcomes together (docs/messages.md "Batched claims"). These tests hold a
// batch to the rules of one message at a time: order, attempts, holds, events.

/** A network that refuses a message's first send with the error the test gives for its text. */
class ScriptedSim extends SimDriver {
  failOnce = new Map<string, Error>();
  readonly calls: string[] = [];
  override async send(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }> {
    this.calls.push(message.text ?? "");
    const err = this.failOnce.get(message.text ?? "");
    if (err) {
      this.failOnce.delete(message.text ?? "");
      throw err;
    }
    return super.send(sessionId, message);
  }
}

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string };
let sim: ScriptedSim;
afterEach(() => t.close());

async function queue(n: number, config: Record<string, unknown> = {}): Promise<string[]> {
  sim = new ScriptedSim({ latencyMs: 1 });
  t = await createTestApp({ simDriver: sim, config: { sendMinGapMs: 0, sendJitterMs: 0, sendMaxAttempts: 5, ...config } });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", body: `m${i}` } });
    expect(r.status).toBe(202);
    ids.push(r.body.data.id);
  }
  return ids;
}

type Row = { status: string; attempts: number; token: string | null; code: string | null };
const rows = async (ids: string[]) =>
  Promise.all(
    ids.map(async (id) => (await t.deps.db.prepare<Row>("SELECT status, attempts, sending_token AS token, error_code AS code FROM messages WHERE id = ?").get(id))!),
  );
const sentTexts = () => t.sim.sent.filter((s) => s.sessionId === session.id).map((s) => s.message.text);

test("a transient failure inside a batch ends it: that message waits for its retry, the heads claimed after it go back uncounted, and nothing overtakes it", async () => {
  const ids = await queue(8);
  const events = recordEvents(t);
  sim.failOnce.set("m3", new NetworkError("slow down", true, "rate_limited"));
  await t.deps.jobs.runDue();
  const after = await rows(ids);
  expect(after.slice(0, 3).map((r) => r.status)).toEqual(["sent", "sent", "sent"]);
  expect(after[3]).toEqual({ status: "queued", attempts: 1, token: null, code: "rate_limited" });
  for (const r of after.slice(4)) expect(r).toEqual({ status: "queued", attempts: 0, token: null, code: null });
  expect(sim.calls).toEqual(["m0", "m1", "m2", "m3"]);
  t.clock.advance(60_000);
  await drain(t);
  expect(sentTexts()).toEqual(ids.map((_, i) => `m${i}`));
  expect(events.filter((e) => e.event === "message_sent").map((e) => e.data.messageId)).toEqual(ids);
  expect((await rows(ids)).map((r) => [r.status, r.token])).toEqual(ids.map(() => ["sent", null]));
});

test("a permanent failure inside a batch fails that message (message_failed) and the batch goes on in order", async () => {
  const ids = await queue(6);
  const events = recordEvents(t);
  sim.failOnce.set("m2", new NetworkError("no such recipient", false, "recipient_invalid"));
  await drain(t);
  expect((await rows(ids)).map((r) => r.status)).toEqual(["sent", "sent", "failed", "sent", "sent", "sent"]);
  expect(sentTexts()).toEqual(["m0", "m1", "m3", "m4", "m5"]);
  expect(events.filter((e) => e.event === "message_failed").map((e) => e.data.messageId)).toEqual([ids[2]]);
  expect(events.filter((e) => e.event === "message_sent").map((e) => e.data.messageId)).toEqual(ids.filter((_, i) => i !== 2));
});

test("not_connected inside a batch holds the queue: the rest of the batch goes back uncounted and goes out once the session is back", async () => {
  const ids = await queue(6);
  sim.failOnce.set("m2", new NetworkError("session is not connected", true, "not_connected"));
  await t.deps.jobs.runDue();
  const held = await rows(ids);
  expect(held.slice(0, 2).map((r) => r.status)).toEqual(["sent", "sent"]);
  for (const r of held.slice(2)) expect(r).toEqual({ status: "queued", attempts: 0, token: null, code: null });
  expect(await t.deps.jobs.runDue()).toBe(0); // held: the job comes back later
  t.clock.advance(30_000);
  await drain(t);
  expect(sentTexts()).toEqual(ids.map((_, i) => `m${i}`));
  expect((await rows(ids)).map((r) => r.attempts)).toEqual(ids.map(() => 1));
});

test("every queued message goes out once, in order, with one message_sent each, across several batches and sessions", async () => {
  const ids = await queue(100);
  const other = await connectedSession(t, ws);
  const otherIds: string[] = [];
  for (let i = 0; i < 40; i++) {
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: other.id, to: "919876543211", body: `o${i}` } });
    otherIds.push(r.body.data.id);
  }
  const events = recordEvents(t);
  await drain(t);
  expect(sentTexts()).toEqual(ids.map((_, i) => `m${i}`));
  expect(t.sim.sent.filter((s) => s.sessionId === other.id).map((s) => s.message.text)).toEqual(otherIds.map((_, i) => `o${i}`));
  const sent = events.filter((e) => e.event === "message_sent").map((e) => e.data.messageId as string);
  expect(sent.filter((id) => ids.includes(id))).toEqual(ids);
  expect(sent.filter((id) => otherIds.includes(id))).toEqual(otherIds);
  expect(new Set(sent).size).toBe(sent.length);
  expect((await rows([...ids, ...otherIds])).every((r) => r.status === "sent" && r.attempts === 1 && r.token === null)).toBe(true);
});

test("a batch reads and claims only the heads of its own workspace's session", async () => {
  await queue(3);
  const other = await createWorkspace(t);
  const now = t.clock.now().getTime();
  const mine = t.deps.db.engine === "postgres" ? (await claimHeadsIfDue(t.deps.db, ws.id, session.id, Bun.randomUUIDv7(), now, [], 5)).map((c) => c.head) : await queuedHeads(t.deps.db, ws.id, session.id);
  expect(mine).toHaveLength(3);
  if (t.deps.db.engine === "postgres") await t.deps.db.prepare("UPDATE messages SET sending_token = NULL, attempts = 0").run();
  const theirs = t.deps.db.engine === "postgres" ? await claimHeadsIfDue(t.deps.db, other.id, session.id, Bun.randomUUIDv7(), now, [], 5) : await queuedHeads(t.deps.db, other.id, session.id);
  expect(theirs).toEqual([]);
});
