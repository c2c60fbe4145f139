// Review probes of campaigns: audiences with other workspaces' ids, repeats and LID
// contacts; variables' defaults; concurrent starts; a session that never connected.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "../messages/helpers.ts";
import { eventually, linkSession, newSession } from "../sessions/helpers.ts";
import { advanceUntil, campaign, campaignBody, freshOwner, newCampaign, seedContacts, settle, simSent } from "./helpers.ts";

const dataDir = mkdtempSync(join(tmpdir(), "parley-campaign-review-"));
const t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, sendMaxAttempts: 1 }, sim: { dataDir } });
afterAll(() => t.close());

test("contactIds: another workspace's contacts are neither messaged nor shown; a repeated id is one message and one `duplicate`; a LID contact is messaged at its LID", async () => {
  const ws = await createWorkspace(t);
  const other = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const mine = await seedContacts(t, ws, 2, (i) => (i === 1 ? { phone: "123456789012345@lid", name: "Hidden" } : { name: "Asha" }));
  const theirs = await seedContacts(t, other, 1, () => ({ name: "Secret" }));
  const id = await newCampaign(t, ws, campaignBody([s.id], [mine[0]!.id, mine[0]!.id, mine[1]!.id, theirs[0]!.id], { message: { type: "text", body: "Hi {{name|friend}}, {{attributes.city|your city}} ({{phone|number hidden}})" } }));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed");
  const c = await campaign(t, ws, id);
  expect(c.stats).toMatchObject({ total: 3, sent: 2, skipped: 1, pending: 0, failed: 0 });
  const sent = simSent(dataDir).filter((x) => [mine[0]!.phone, mine[1]!.phone, theirs[0]!.phone].includes(x.to));
  expect(sent.map((x) => [x.to, x.text]).sort()).toEqual([
    // a LID is not a number to show anyone: {{phone}} takes its default
    [mine[1]!.phone, "Hi Hidden, your city (number hidden)"],
    [mine[0]!.phone, `Hi Asha, your city (${mine[0]!.phone})`],
  ].sort());
  const rec = (await t.request("GET", `/api/v1/campaigns/${id}/recipients?limit=100`, { token: ws.owner.token })).body.data;
  expect(rec.map((r: { phone: string }) => r.phone)).not.toContain(theirs[0]!.phone);
  expect(rec.filter((r: { skippedReason: string | null }) => r.skippedReason === "duplicate").length).toBe(1);
});

test("variables: an unknown one, an unclosed one and a bad attribute key are 400 at create with errors at message.body", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const token = await freshOwner(t, ws);
  for (const body of ["Hi {{first_name}}", "Hi {{name", "Hi {{attributes.1city}}", "Hi {{attributes.}}"]) {
    const r = await t.request("POST", "/api/v1/campaigns", { token, body: campaignBody([s.id], [Bun.randomUUIDv7()], { message: { type: "text", body } }) });
    expect([r.status, r.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(Object.keys(r.body.errors)).toContain("message.body");
  }
});

test("two starts at once: one wins, the other is 409; recipients exist once", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, 50);
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id)), false);
  const [a, b] = await Promise.all([1, 2].map(() => t.request("POST", `/api/v1/campaigns/${id}/start`, { token: ws.owner.token })));
  expect([a!.status, b!.status].sort()).toEqual([200, 409]);
  expect(await t.deps.db.prepare("SELECT count(*) AS n FROM campaign_recipients WHERE campaign_id = ?").get(id)).toEqual({ n: 50 });
  expect((await campaign(t, ws, id)).stats.total).toBe(50);
});

test("start with only a session that never connected: the campaign pauses (session_disconnected) instead of running for ever", async () => {
  const ws = await createWorkspace(t);
  const sid = await newSession(t, ws);
  const people = await seedContacts(t, ws, 3);
  const id = await newCampaign(t, ws, campaignBody([sid], people.map((p) => p.id)));
  await settle(t);
  for (let i = 0; i < 5; i++) {
    t.clock.advance(5000);
    await settle(t);
  }
  expect(await campaign(t, ws, id)).toMatchObject({ status: "paused", pausedReason: "session_disconnected" });
});

test("a session that drops and reconnects by itself (connection_lost) keeps the campaign running (waiting, nothing sent), not paused", async () => {
  const ws = await createWorkspace(t);
  const s = { id: await newSession(t, ws) };
  await linkSession(t, ws, s.id, "919812300077"); // through the session manager, which sees the drop
  const people = await seedContacts(t, ws, 5);
  const phones = new Set(people.map((p) => p.phone));
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id)), false);
  t.sim.drop(s.id, 60_000); // reconnects in a minute of real time: the drop outlives the checks below
  await eventually(async () => expect((await t.deps.db.prepare("SELECT last_disconnect_reason AS r FROM chat_sessions WHERE id = ?").get(s.id) as { r: string }).r).toBe("connection_lost"));
  expect((await t.request("POST", `/api/v1/campaigns/${id}/start`, { token: await freshOwner(t, ws) })).status).toBe(200);
  for (let i = 0; i < 5; i++) {
    t.clock.advance(5000);
    await settle(t);
  }
  expect((await campaign(t, ws, id)).status).toBe("running");
  expect(simSent(dataDir).filter((x) => phones.has(x.to)).length).toBe(0);
});

test("pause, resume and retry-failed: agents and viewers 403, another workspace 404 (nothing changes); another workspace's segment is 404 at create", async () => {
  const ws = await createWorkspace(t);
  const other = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, 3);
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id), { pacing: { perMinute: 1, jitterPercent: 0, warmup: false } }));
  for (const action of ["pause", "resume", "retry-failed"]) {
    for (const role of ["agent", "viewer"] as const) {
      const m = await ws.member(role);
      const r = await t.request("POST", `/api/v1/campaigns/${id}/${action}`, { token: m.token });
      expect(`${role} ${action}: ${r.status} ${r.body.code}`).toBe(`${role} ${action}: 403 FORBIDDEN`);
    }
    const r = await t.request("POST", `/api/v1/campaigns/${id}/${action}`, { token: other.owner.token });
    expect(`other ${action}: ${r.status}`).toBe(`other ${action}: 404`);
  }
  expect((await campaign(t, ws, id)).status).toBe("running");
  const seg = await t.request("POST", "/api/v1/segments", { token: other.owner.token, body: { name: "theirs", filter: {} } });
  expect(seg.status).toBe(201);
  const r = await t.request("POST", "/api/v1/campaigns", { token: await freshOwner(t, ws), body: campaignBody([s.id], [], { audience: { segmentId: seg.body.data.id } }) });
  expect([r.status, r.body.code]).toEqual([404, "NOT_FOUND"]);
});
