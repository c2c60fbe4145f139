import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "../messages/helpers.ts";
import { eventually, linkSession, newSession } from "../sessions/helpers.ts";
import { advanceUntil, campaign, campaignBody, checkProgress, newCampaign, progressEvents, seedContacts, settle, simSent } from "./helpers.ts";

const dataDir = mkdtempSync(join(tmpdir(), "parley-campaign-life-"));
// one attempt per message: a simulated failure fails the message at once
const t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, sendMaxAttempts: 1 }, sim: { dataDir } });
afterAll(() => t.close());

const sentTo = (phones: Set<string>) => simSent(dataDir).filter((s) => phones.has(s.to));
const go = (ws: TestWorkspace, id: string, action: string) => t.request("POST", `/api/v1/campaigns/${id}/${action}`, { token: ws.owner.token });

async function setup(n: number, perMinute = 60) {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, n);
  const phones = new Set(people.map((p) => p.phone));
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id), { pacing: { perMinute, jitterPercent: 0, warmup: false } }));
  return { ws, s, people, phones, id };
}

test("pause holds the campaign (its queued messages too: nothing more goes out); resume finishes it, each person once", async () => {
  const { ws, phones, id } = await setup(30);
  await advanceUntil(t, 1000, () => sentTo(phones).length >= 5);
  expect((await go(ws, id, "pause")).body.data).toMatchObject({ status: "paused", pausedReason: "user_request" });
  const atPause = sentTo(phones).length;
  for (let i = 0; i < 20; i++) {
    t.clock.advance(1000);
    await settle(t);
  }
  expect(sentTo(phones).length).toBe(atPause);
  expect((await campaign(t, ws, id)).status).toBe("paused");
  expect((await go(ws, id, "resume")).body.data.status).toBe("running");
  await advanceUntil(t, 1000, async () => (await campaign(t, ws, id)).status === "completed");
  expect(new Set(sentTo(phones).map((s) => s.to)).size).toBe(30);
  expect(sentTo(phones).length).toBe(30);
});

test("cancel: the waiting recipients become skipped (cancelled) and nothing more is sent", async () => {
  const { ws, phones, id } = await setup(20);
  await advanceUntil(t, 1000, () => sentTo(phones).length >= 3);
  const c = (await go(ws, id, "cancel")).body.data;
  expect(c.status).toBe("cancelled");
  for (let i = 0; i < 10; i++) {
    t.clock.advance(1000);
    await settle(t);
  }
  const after = await campaign(t, ws, id);
  expect(after.stats.pending).toBe(0);
  expect(after.stats.sent).toBe(sentTo(phones).length);
  expect(after.stats.sent + after.stats.skipped).toBe(20);
  const cancelled = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=skipped&limit=100`, { token: ws.owner.token });
  expect(cancelled.body.data.every((r: { skippedReason: string }) => r.skippedReason === "cancelled")).toBe(true);
});

test("a session logged out on the network pauses the campaign (session_disconnected)", async () => {
  const ws = await createWorkspace(t);
  const sid = await newSession(t, ws);
  await linkSession(t, ws, sid, "919812300001");
  const people = await seedContacts(t, ws, 20);
  const phones = new Set(people.map((p) => p.phone));
  const events = progressEvents(t);
  const id = await newCampaign(t, ws, campaignBody([sid], people.map((p) => p.id), { pacing: { perMinute: 60, jitterPercent: 0, warmup: false } }));
  await advanceUntil(t, 1000, () => sentTo(phones).length >= 3);
  expect((await t.request("POST", `/api/sim/sessions/${sid}/logout`, { token: ws.owner.token, body: { reason: "logged_out" } })).status).toBe(200);
  await eventually(async () => expect((await campaign(t, ws, id)).pausedReason).toBe("session_disconnected"));
  const c = await campaign(t, ws, id);
  expect(c.status).toBe("paused");
  const last = events.filter((e) => e.data.campaignId === id).at(-1)!;
  expect(last.data).toMatchObject({ status: "paused", pausedReason: "session_disconnected" });
  const before = sentTo(phones).length;
  for (let i = 0; i < 5; i++) {
    t.clock.advance(1000);
    await settle(t);
  }
  expect(sentTo(phones).length).toBe(before);
});

test("failures: 20 % of the last 50 sends failing pauses (failure_rate); retry-failed sends to them again", async () => {
  const { ws, s, phones, id } = await setup(30, 600);
  t.sim.failNextSends(s.id, 10);
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "paused");
  const paused = await campaign(t, ws, id);
  expect(paused.pausedReason).toBe("failure_rate");
  expect(paused.stats.failed).toBe(10);
  const failed = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=failed&limit=100`, { token: ws.owner.token });
  expect(failed.body.data[0].error.code).toBe("send_failed");
  expect((await go(ws, id, "retry-failed")).body.data).toMatchObject({ status: "running", stats: { failed: 0 } });
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed");
  const done = await campaign(t, ws, id);
  expect(done.stats).toMatchObject({ total: 30, sent: 30, failed: 0, pending: 0 });
  expect(new Set(sentTo(phones).map((x) => x.to)).size).toBe(30);
  expect(sentTo(phones).length).toBe(30);
  expect((await go(ws, id, "retry-failed")).status).toBe(409); // nothing failed any more
});

test("the monthly message quota pauses the campaign (quota_exceeded); campaign messages count in it", async () => {
  await upsertPlan(t.deps.db, "tiny", { name: "Tiny", monthlyPaise: 100, annualPaise: 1000, limits: { sessions: 5, messagesPerMonth: 5, contacts: 100, apiRequestsPerDay: 1000, webhooks: 1, teamSeats: 5, campaigns: true } }, 0);
  const ws = await createWorkspace(t, { planId: "tiny", status: "active" });
  await t.deps.db.prepare("UPDATE workspaces SET current_period_end = ? WHERE id = ?").run(t.clock.now().getTime() + 30 * 86_400_000, ws.id);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, 8);
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id)));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "paused");
  const c = await campaign(t, ws, id);
  expect(c.pausedReason).toBe("quota_exceeded");
  expect(c.stats.sent + c.stats.pending).toBe(8);
  const usage = await t.deps.db.prepare("SELECT sum(outbound) AS n FROM message_usage WHERE workspace_id = ?").get(ws.id) as { n: number };
  expect(usage.n).toBe(5);
});

test("a plan that stops allowing campaigns pauses it (plan_inactive)", async () => {
  const { ws, phones, id } = await setup(20);
  await advanceUntil(t, 1000, () => sentTo(phones).length >= 2);
  await t.deps.db.prepare("UPDATE workspaces SET plan_id = 'free', subscription_status = 'free' WHERE id = ?").run(ws.id);
  await advanceUntil(t, 1000, async () => (await campaign(t, ws, id)).status === "paused", 20);
  expect((await campaign(t, ws, id)).pausedReason).toBe("plan_inactive");
  const resume = await go(ws, id, "resume");
  expect([resume.status, resume.body.code]).toEqual([403, "SUBSCRIPTION_INACTIVE"]);
});

test("receipts move recipients to delivered and read; a contact who opts out meanwhile is skipped", async () => {
  const { ws, s, people, phones, id } = await setup(6);
  const events = progressEvents(t, id);
  await t.deps.db.prepare("UPDATE contacts SET opted_out = 1 WHERE id = ?").run(people[5]!.id);
  await advanceUntil(t, 1000, async () => (await campaign(t, ws, id)).status === "completed");
  const sent = sentTo(phones);
  expect(sent.length).toBe(5);
  t.sim.receipt(s.id, (sent[0] as { networkMessageId?: string } & typeof sent[0]).networkMessageId!, "delivered");
  t.sim.receipt(s.id, (sent[1] as { networkMessageId?: string } & typeof sent[1]).networkMessageId!, "read");
  await eventually(async () => expect((await campaign(t, ws, id)).stats).toMatchObject({ sent: 3, delivered: 1, read: 1, skipped: 1 }));
  const read = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=read`, { token: ws.owner.token });
  expect(read.body.data[0].sentAt).not.toBeNull();
  const skipped = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=skipped`, { token: ws.owner.token });
  expect(skipped.body.data.map((r: any) => [r.phone, r.skippedReason])).toEqual([[people[5]!.phone, "opted_out"]]);
  // counts moved after completion: announced at most 5 s later
  t.clock.advance(5000);
  await settle(t);
  expect(events.at(-1)!.data).toMatchObject({ status: "completed", delivered: 1, read: 1 });
  expect(checkProgress(events.map((e) => e.data))).toEqual([]);
  // the messages API shows where a message came from
  const m = await t.request("GET", `/api/v1/messages/${read.body.data[0].messageId}`, { token: ws.owner.token });
  expect(m.body.data.campaignId).toBe(id);
});

test("a contact deleted while the campaign runs (an erasure request) is skipped (contact_deleted), never messaged", async () => {
  const { ws, people, phones, id } = await setup(4);
  const gone = people[3]!;
  expect((await t.request("DELETE", `/api/v1/contacts/${gone.id}`, { token: ws.owner.token })).status).toBe(200);
  await advanceUntil(t, 1000, async () => (await campaign(t, ws, id)).status === "completed");
  expect(sentTo(phones).map((x) => x.to)).not.toContain(gone.phone);
  expect(sentTo(phones).length).toBe(3);
  const skipped = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=skipped`, { token: ws.owner.token });
  expect(skipped.body.data.map((r: any) => [r.phone, r.skippedReason])).toEqual([[gone.phone, "contact_deleted"]]);
});

test("campaign messages enter the session's queue a few at a time: a one-off send waits behind at most two", async () => {
  const { ws, s, phones, id } = await setup(200, 600);
  const queuedOfCampaign = async () =>
    (await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE session_id = ? AND status = 'queued' AND campaign_id IS NOT NULL").get(s.id) as { n: number }).n;
  let maxQueued = 0;
  await advanceUntil(t, 100, async () => {
    maxQueued = Math.max(maxQueued, await queuedOfCampaign());
    return sentTo(phones).length >= 20;
  });
  expect(maxQueued).toBeLessThanOrEqual(2);
  const before = simSent(dataDir).length;
  const oneOff = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s.id, to: "919899999999", body: "a reply" } });
  expect(oneOff.status).toBe(202);
  await advanceUntil(t, 100, () => simSent(dataDir).some((x) => x.to === "919899999999"));
  const position = simSent(dataDir).findIndex((x) => x.to === "919899999999");
  expect(position - before).toBeLessThanOrEqual(2);
  expect((await go(ws, id, "cancel")).status).toBe(200);
});

test("recipients whose bookkeeping was lost (a failed savepoint) are caught up from their messages, and the campaign completes", async () => {
  const { ws, id } = await setup(3, 600);
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed");
  // as if the hook of one message_sent had failed: the recipient still pending, the campaign still running
  await t.deps.db.prepare("UPDATE campaign_recipients SET status = 'pending', sent_at = NULL WHERE id = (SELECT id FROM campaign_recipients WHERE campaign_id = ? LIMIT 1)").run(id);
  await t.deps.db.prepare("UPDATE campaigns SET status = 'running', completed_at = NULL, pending = 1, sent = 2 WHERE id = ?").run(id);
  const { wakeRun } = await import("../../../src/modules/campaigns/engine.ts");
  await t.deps.db.tx(() => wakeRun(t.deps, ws.id, id));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 50);
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: 3, pending: 0, sent: 3 });
});

test("a contact who writes STOP while the campaign runs is skipped (opted_out) when their turn comes", async () => {
  const { ws, s, people, phones, id } = await setup(10, 60);
  const last = people[9]!;
  expect((await t.request("POST", `/api/sim/sessions/${s.id}/inbound`, { token: ws.owner.token, body: { from: last.phone, text: " stop " } })).status).toBe(200);
  await eventually(async () => expect((await t.deps.db.prepare("SELECT opted_out AS o FROM contacts WHERE id = ?").get(last.id) as { o: number }).o).toBe(1));
  await advanceUntil(t, 1000, async () => (await campaign(t, ws, id)).status === "completed");
  expect(sentTo(phones).some((x) => x.to === last.phone)).toBe(false);
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: 10, sent: 9, skipped: 1 });
  const skipped = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=skipped`, { token: ws.owner.token });
  expect(skipped.body.data).toEqual([expect.objectContaining({ phone: last.phone, skippedReason: "opted_out", messageId: null })]);
});

test("an audience that matches nobody completes at once with total 0", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const id = await newCampaign(t, ws, campaignBody([s.id], [Bun.randomUUIDv7()]));
  await settle(t);
  expect(await campaign(t, ws, id)).toMatchObject({ status: "completed", stats: { total: 0, pending: 0 } });
});
