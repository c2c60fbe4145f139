import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";
import { connectedSession, drain, statusOf } from "./helpers.ts";

// Scheduled sends: `sendAt` answers 202 scheduled, a durable job queues the message at that
// time, and DELETE /api/v1/messages/{id} cancels it while it is still scheduled.

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let s1: { id: string; phone: string };
const dataDir = mkdtempSync(join(tmpdir(), "parley-scheduled-"));
const HOUR = 3_600_000;

/** Moves the manual clock (scheduled sends wait hours) and mints the owner a token valid at the new time. */
async function advance(ms: number) {
  t.clock.advance(ms);
  ws.owner.token = await accessToken(t, ws.owner.userId, ws.id, "owner");
  other.owner.token = await accessToken(t, other.owner.userId, other.id, "owner");
}
const later = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();
const send = (body: Record<string, unknown>, token = ws.owner.token) =>
  t.request("POST", "/api/v1/messages/send", { token, body: { session_id: s1.id, type: "text", ...body } });
const sentTexts = () => readSimSent(dataDir).map((x) => x.text);
const usage = async () => Number(((await t.deps.db.prepare("SELECT coalesce(sum(outbound), 0) AS n FROM message_usage WHERE workspace_id = ?").get(ws.id)) as { n: number }).n);

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { dataDir } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  s1 = await connectedSession(t, ws);
});
afterAll(() => t.close());

describe("scheduled sends", () => {
  test("202 scheduled; nothing goes out before sendAt; at sendAt it is queued and sent", async () => {
    const sendAt = later(HOUR);
    const r = await send({ to: "919899900001", body: "Following up on your order", sendAt });
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ status: "scheduled", sendAt, to: "919899900001" });
    const id = r.body.data.id;
    await drain(t);
    expect(sentTexts()).not.toContain("Following up on your order");
    const m = await t.request("GET", `/api/v1/messages/${id}`, { token: ws.owner.token });
    expect(m.body.data).toMatchObject({ status: "scheduled", sendAt });
    // the conversation exists (the thread shows the scheduled message)
    const conv = (await t.request("GET", `/api/v1/inbox/conversations?q=919899900001`, { token: ws.owner.token })).body.data[0];
    expect(conv.lastMessage).toMatchObject({ id, status: "scheduled" });
    await advance(HOUR - 1000);
    await drain(t);
    expect(await statusOf(t, id)).toBe("scheduled");
    await advance(1000);
    await drain(t);
    expect(await statusOf(t, id)).toBe("sent");
    expect(sentTexts()).toContain("Following up on your order");
  });

  test("a scheduled message goes after a newer message became the conversation's last: it becomes the last when queued", async () => {
    const r = await send({ to: "919899900002", body: "reminder", sendAt: later(HOUR) });
    await send({ to: "919899900002", body: "right now" });
    await drain(t);
    const conv = async () => (await t.request("GET", `/api/v1/inbox/conversations?q=919899900002`, { token: ws.owner.token })).body.data[0];
    expect((await conv()).lastMessage.preview).toBe("right now");
    await advance(HOUR);
    await drain(t);
    expect((await conv()).lastMessage).toMatchObject({ id: r.body.data.id, preview: "reminder", status: "sent" });
  });

  test("sendAt in the past, now, or past 30 days, or not a time, is 400 naming sendAt; nothing is stored", async () => {
    const before = Number(((await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE workspace_id = ?").get(ws.id)) as { n: number }).n);
    for (const sendAt of [later(-1000), later(0), later(30 * 24 * HOUR + 1000), "tomorrow at nine", "2026-13-01T00:00:00Z"]) {
      const r = await send({ to: "919899900003", body: "x", sendAt });
      expect(r.status, sendAt).toBe(400);
      expect(r.body.errors.sendAt, sendAt).toBeDefined();
    }
    expect((await send({ to: "919899900003", body: "in 30 days", sendAt: later(30 * 24 * HOUR) })).status).toBe(202);
    const after = Number(((await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE workspace_id = ?").get(ws.id)) as { n: number }).n);
    expect(after).toBe(before + 1);
  });

  test("DELETE cancels while scheduled (cancelled, never sent, usage given back); then 409", async () => {
    const used = await usage();
    const r = await send({ to: "919899900004", body: "never mind", sendAt: later(HOUR) });
    expect(await usage()).toBe(used + 1);
    const id = r.body.data.id;
    const agent = await ws.member("agent");
    const del = await t.request("DELETE", `/api/v1/messages/${id}`, { token: agent.token });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id, status: "cancelled" });
    expect(await usage()).toBe(used);
    await advance(2 * HOUR);
    await drain(t);
    expect(await statusOf(t, id)).toBe("cancelled");
    expect(sentTexts()).not.toContain("never mind");
    agent.token = await accessToken(t, agent.userId, ws.id, "agent");
    const again = await t.request("DELETE", `/api/v1/messages/${id}`, { token: agent.token });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("CONFLICT");
    // a message that was never scheduled, or went out already
    const now = await send({ to: "919899900004", body: "sent at once" });
    await drain(t);
    const sent = await t.request("DELETE", `/api/v1/messages/${now.body.data.id}`, { token: agent.token });
    expect(sent.status).toBe(409);
    expect(sent.body.message).toContain("sent");
  });

  test("cancel: viewers 403, another workspace's message 404, bad id 400", async () => {
    const r = await send({ to: "919899900005", body: "keep me", sendAt: later(HOUR) });
    const id = r.body.data.id;
    const viewer = await ws.member("viewer");
    expect((await t.request("DELETE", `/api/v1/messages/${id}`, { token: viewer.token })).status).toBe(403);
    const foreign = await t.request("DELETE", `/api/v1/messages/${id}`, { token: other.owner.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("NOT_FOUND");
    expect((await t.request("DELETE", "/api/v1/messages/nope", { token: ws.owner.token })).body.errors.id).toBeDefined();
    expect(await statusOf(t, id)).toBe("scheduled");
  });

  test("a scheduled send may name a session that is offline now; one of another workspace is 404", async () => {
    const theirs = await connectedSession(t, other);
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: theirs.id, to: "919899900006", body: "x", sendAt: later(HOUR) } });
    expect(r.status).toBe(404);
    await t.deps.db.prepare("UPDATE chat_sessions SET status = 'disconnected' WHERE id = ?").run(s1.id);
    try {
      expect((await send({ to: "919899900006", body: "x" })).status).toBe(502);
      expect((await send({ to: "919899900006", body: "when you are back", sendAt: later(HOUR) })).status).toBe(202);
    } finally {
      await t.deps.db.prepare("UPDATE chat_sessions SET status = 'connected' WHERE id = ?").run(s1.id);
    }
  });
});
