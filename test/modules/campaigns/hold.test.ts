// Pause and cancel act on the messages a campaign already put in a session's queue: a paused
// campaign's queued messages wait (they do not go out, and they block neither a one-off send
// nor another campaign on the session); resume lets them go; cancel fails them (`cancelled`)
// and their recipients become skipped (`cancelled`) like the ones that had no message yet.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tick } from "../../../src/modules/campaigns/engine.ts";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, recordEvents } from "../messages/helpers.ts";
import { eventually, linkSession, newSession } from "../sessions/helpers.ts";
import { advanceUntil, campaign, campaignBody, newCampaign, seedContacts, settle, simSent } from "./helpers.ts";

const dataDir = mkdtempSync(join(tmpdir(), "parley-campaign-hold-"));
const t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, sendMaxAttempts: 1 }, sim: { dataDir } });
afterAll(() => t.close());

const go = (ws: TestWorkspace, id: string, action: string) => t.request("POST", `/api/v1/campaigns/${id}/${action}`, { token: ws.owner.token });
const queuedOf = async (id: string) =>
  (await t.deps.db.prepare("SELECT id, status, error_code AS code FROM messages WHERE campaign_id = ? ORDER BY id").all(id)) as { id: string; status: string; code: string | null }[];

/** A started campaign whose session holds two of its messages, not sent yet (the run job and the sender have not run). */
async function withQueued(n = 10) {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, n);
  const phones = new Set(people.map((p) => p.phone));
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id), { pacing: { perMinute: 600, jitterPercent: 0, warmup: false } }));
  await t.deps.db.tx(() => tick(t.deps, ws.id, id));
  t.clock.advance(100);
  await t.deps.db.tx(() => tick(t.deps, ws.id, id));
  expect((await queuedOf(id)).map((m) => m.status)).toEqual(["queued", "queued"]);
  return { ws, s, people, phones, id, sentTo: () => simSent(dataDir).filter((x) => phones.has(x.to)) };
}

test("pause: the campaign's queued messages stay queued and do not go out; a one-off send on the session does; resume sends them, each person once", async () => {
  const { ws, s, sentTo, id } = await withQueued();
  expect((await go(ws, id, "pause")).body.data.status).toBe("paused");
  for (let i = 0; i < 10; i++) {
    t.clock.advance(1000);
    await settle(t);
  }
  expect(sentTo().length).toBe(0);
  expect((await queuedOf(id)).map((m) => m.status)).toEqual(["queued", "queued"]);
  const oneOff = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s.id, to: "919899990001", body: "a reply" } });
  expect(oneOff.status).toBe(202);
  await settle(t);
  expect(simSent(dataDir).some((x) => x.to === "919899990001")).toBe(true);
  expect((await go(ws, id, "resume")).body.data.status).toBe("running");
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed");
  expect(sentTo().length).toBe(10);
  expect(new Set(sentTo().map((x) => x.to)).size).toBe(10);
});

test("a paused campaign's queued messages do not take the session's window from another running campaign", async () => {
  const { ws, s, sentTo, id } = await withQueued();
  expect((await go(ws, id, "pause")).status).toBe(200);
  const others = await seedContacts(t, ws, 5);
  const phones = new Set(others.map((p) => p.phone));
  const second = await newCampaign(t, ws, campaignBody([s.id], others.map((p) => p.id), { pacing: { perMinute: 600, jitterPercent: 0, warmup: false } }));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, second)).status === "completed", 200);
  expect(simSent(dataDir).filter((x) => phones.has(x.to)).length).toBe(5);
  expect(sentTo().length).toBe(0);
  expect((await go(ws, id, "cancel")).status).toBe(200);
});

test("cancel: queued messages fail (`cancelled`) and never go out; their recipients are skipped (`cancelled`); counts add up", async () => {
  const { ws, sentTo, id } = await withQueued();
  const events = recordEvents(t);
  const c = (await go(ws, id, "cancel")).body.data;
  expect(c.status).toBe("cancelled");
  expect(c.stats).toMatchObject({ total: 10, pending: 0, sent: 0, skipped: 10 });
  for (let i = 0; i < 10; i++) {
    t.clock.advance(1000);
    await settle(t);
  }
  expect(sentTo().length).toBe(0);
  expect((await queuedOf(id)).map((m) => [m.status, m.code])).toEqual([["failed", "cancelled"], ["failed", "cancelled"]]);
  // ordinary messages: each one's end is announced
  const queued = await queuedOf(id);
  expect(events.filter((e) => e.event === "message_failed" && queued.some((m) => m.id === e.data.messageId)).length).toBe(2);
  const skipped = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=skipped&limit=100`, { token: ws.owner.token });
  expect(skipped.body.data.length).toBe(10);
  expect(skipped.body.data.every((r: { skippedReason: string }) => r.skippedReason === "cancelled")).toBe(true);
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: 10, pending: 0, sent: 0, failed: 0, skipped: 10 });
});

test("cancel leaves an attempt under way to finish; if it comes back to the queue (transient failure) it is not stuck there for ever", async () => {
  const { ws, s, id } = await withQueued();
  const [first] = await queuedOf(id);
  // as if the sender had claimed it and was waiting on the network when the cancel came
  await t.deps.db.prepare("UPDATE messages SET sending_token = 'in-flight' WHERE id = ?").run(first!.id);
  const c = (await go(ws, id, "cancel")).body.data;
  expect(c.stats).toMatchObject({ total: 10, pending: 1, skipped: 9 });
  expect((await queuedOf(id)).map((m) => m.status)).toEqual(["queued", "failed"]);
  // the attempt failed transiently: back in the queue without a token (markRetry)
  await t.deps.db.prepare("UPDATE messages SET sending_token = NULL WHERE id = ?").run(first!.id);
  const { nextQueued } = await import("../../../src/modules/messages/repo.ts");
  expect((await nextQueued(t.deps.db, ws.id, s.id))?.id).toBe(first!.id);
  await settle(t);
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: 10, pending: 0, sent: 1, skipped: 9 });
});

test("a paused campaign's held messages fail with the session when it is logged out (its recipients become failed, counts add up)", async () => {
  const ws = await createWorkspace(t);
  const sid = await newSession(t, ws);
  await linkSession(t, ws, sid, "919812300099");
  const people = await seedContacts(t, ws, 6);
  const id = await newCampaign(t, ws, campaignBody([sid], people.map((p) => p.id), { pacing: { perMinute: 600, jitterPercent: 0, warmup: false } }));
  await t.deps.db.tx(() => tick(t.deps, ws.id, id));
  t.clock.advance(100);
  await t.deps.db.tx(() => tick(t.deps, ws.id, id));
  expect((await go(ws, id, "pause")).status).toBe(200);
  expect((await t.request("POST", `/api/sim/sessions/${sid}/logout`, { token: ws.owner.token, body: { reason: "logged_out" } })).status).toBe(200);
  await eventually(async () => expect((await queuedOf(id)).map((m) => m.status)).toEqual(["failed", "failed"]));
  const c = await campaign(t, ws, id);
  expect(c).toMatchObject({ status: "paused", stats: { total: 6, pending: 4, failed: 2, sent: 0 } });
});
