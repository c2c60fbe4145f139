import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { numberChecker } from "../../../src/modules/numbers/checker.ts";
import { pruneChecks } from "../../../src/modules/numbers/repo.ts";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { advanceUntil, campaign, campaignBody, freshOwner, newCampaign, seedContacts, simSent } from "../campaigns/helpers.ts";
import { connectedSession, createApiKey, drain, recordEvents, waitFor } from "../messages/helpers.ts";

// Is a number on the network: the check route, the send that fails `not_on_network`, campaign
// recipients skipped, and the answers cached and batched. On the sim network, where
// POST /api/sim/absent takes numbers off the network.

const dataDir = mkdtempSync(join(tmpdir(), "parley-numbers-"));
const t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { dataDir } });
afterAll(() => t.close());

const ABSENT = "919811100001";
const PRESENT = "919811100002";

test("POST /api/v1/chatapp/{id}/check answers [{phone, onNetwork}] through the session, then from the cache for a day", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const token = ws.owner.token;
  const absent = await t.request("POST", "/api/sim/absent", { token, body: { phones: [`+${ABSENT}`] } });
  expect(absent.status).toBe(200);
  expect(absent.body.data).toEqual({ phones: [ABSENT] });
  const before = t.sim.checks.length;
  const r = await t.request("POST", `/api/v1/chatapp/${s.id}/check`, { token, body: { phones: [`+91 98111 00001`, PRESENT, PRESENT] } });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ success: true, data: [{ phone: ABSENT, onNetwork: false }, { phone: PRESENT, onNetwork: true }] });
  expect(t.sim.checks.slice(before)).toEqual([{ sessionId: s.id, phones: [ABSENT, PRESENT] }]);
  // cached in the database: answered without the network, even with the session gone
  const rows = await t.deps.db.prepare('SELECT phone, on_network AS "onNetwork", expires_at - checked_at AS ttl FROM number_checks WHERE workspace_id = ? ORDER BY phone').all(ws.id);
  expect(rows).toEqual([
    { phone: ABSENT, onNetwork: 0, ttl: 86_400_000 },
    { phone: PRESENT, onNetwork: 1, ttl: 86_400_000 },
  ]);
  await t.sim.disconnect(s.id, { logout: false });
  await t.deps.db.prepare("UPDATE chat_sessions SET status = 'disconnected', last_disconnect_reason = 'connection_lost' WHERE id = ?").run(s.id);
  const again = await t.request("POST", `/api/v1/chatapp/${s.id}/check`, { token, body: { phones: [ABSENT] } });
  expect(again.body.data).toEqual([{ phone: ABSENT, onNetwork: false }]);
  expect(t.sim.checks.length).toBe(before + 1);
  // a number not cached needs a connected session: 502 in the envelope
  const unknown = await t.request("POST", `/api/v1/chatapp/${s.id}/check`, { token, body: { phones: ["919811100003"] } });
  expect(unknown.status).toBe(502);
  expect(unknown.body).toMatchObject({ success: false, code: "CHATAPP_UNAVAILABLE" });
  expect(unknown.body.message).toContain("not connected");
  // a day later the answers have expired: asked again
  const s2 = await connectedSession(t, ws);
  t.clock.advance(86_400_001);
  await freshOwner(t, ws);
  const later = await t.request("POST", `/api/v1/chatapp/${s2.id}/check`, { token: ws.owner.token, body: { phones: [ABSENT] } });
  expect(later.body.data).toEqual([{ phone: ABSENT, onNetwork: false }]);
  expect(t.sim.checks.length).toBe(before + 2);
});

test("check: bad input is a 400 naming the field, a foreign session 404, and the same route works with an API key under /api/external", async () => {
  const ws = await createWorkspace(t);
  const other = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const foreign = await connectedSession(t, other);
  const token = ws.owner.token;
  const tooMany = await t.request("POST", `/api/v1/chatapp/${s.id}/check`, { token, body: { phones: Array.from({ length: 51 }, (_, i) => `9198111${String(i).padStart(5, "0")}`) } });
  expect(tooMany.status).toBe(400);
  expect(tooMany.body).toMatchObject({ code: "VALIDATION_ERROR", errors: { phones: "must name at most 50 numbers" } });
  const bad = await t.request("POST", `/api/v1/chatapp/${s.id}/check`, { token, body: { phones: [PRESENT, "12ab"] } });
  expect(bad.status).toBe(400);
  expect(Object.keys(bad.body.errors)).toEqual(["phones.1"]);
  expect((await t.request("POST", `/api/v1/chatapp/${s.id}/check`, { token, body: { phones: [] } })).body.errors).toEqual({ phones: "must name at least one number" });
  expect((await t.request("POST", `/api/v1/chatapp/${s.id}/check`, { token, body: {} })).body.errors).toEqual({ phones: "is required" });
  const notMine = await t.request("POST", `/api/v1/chatapp/${foreign.id}/check`, { token, body: { phones: [PRESENT] } });
  expect(notMine.status).toBe(404);
  const key = await createApiKey(t, ws);
  const ext = await t.request("POST", `/api/external/chatapp/${s.id}/check`, { apiKey: key, body: { phones: ["919811100004"] } });
  expect(ext.status).toBe(200);
  expect(ext.body.data).toEqual([{ phone: "919811100004", onNetwork: true }]);
  expect((await t.request("POST", `/api/external/chatapp/${foreign.id}/check`, { apiKey: key, body: { phones: [PRESENT] } })).status).toBe(404);
  // a JWT is not a key, nor the other way round
  expect((await t.request("POST", `/api/external/chatapp/${s.id}/check`, { token, body: { phones: [PRESENT] } })).status).toBe(401);
});

test("a message to a number that is not on the network fails with not_on_network instead of being sent", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  t.sim.markAbsent(["919811100010"]);
  const events = recordEvents(t);
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s.id, to: "919811100010", type: "text", body: "hello?" } });
  expect(r.status).toBe(202);
  await drain(t);
  const m = await waitFor(async () => {
    const got = (await t.request("GET", `/api/v1/messages/${r.body.data.id}`, { token: ws.owner.token })).body.data;
    return got.status === "failed" ? got : null;
  }, "failed");
  expect(m.error).toEqual({ code: "not_on_network", message: "the number is not on the network" });
  expect(m.attempts).toBe(1);
  expect(t.sim.sent.some((x) => x.message.to === "919811100010")).toBe(false);
  expect(events.filter((e) => e.event === "message_failed").map((e) => (e.data.error as any).code)).toEqual(["not_on_network"]);
  // a number on the network is sent as before
  const ok = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s.id, to: "919811100011", type: "text", body: "hi" } });
  await drain(t);
  await waitFor(() => t.sim.sent.some((x) => x.message.to === "919811100011"), "sent");
  expect(ok.status).toBe(202);
});

test("checks are batched: numbers asked in the same turn go in questions of at most 50, and a number is never asked twice at once", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const checker = numberChecker(t.deps);
  const phones = Array.from({ length: 120 }, (_, i) => `9198222${String(i).padStart(5, "0")}`);
  const before = t.sim.checks.length;
  const answers = await Promise.all([
    ...phones.map((p) => checker.isOnNetwork(ws.id, s.id, p)),
    checker.check(ws.id, s.id, phones.slice(0, 10)),
  ]);
  expect(answers.slice(0, 120).every((a) => a === true)).toBe(true);
  expect(t.sim.checks.slice(before).map((c) => c.phones.length)).toEqual([50, 50, 20]);
  expect(new Set(t.sim.checks.slice(before).flatMap((c) => c.phones)).size).toBe(120);
});

test("a campaign skips recipients that are not on the network (not_on_network), asking about them in batches ahead of their turn", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, 120);
  const gone = [people[3]!, people[60]!, people[119]!];
  t.sim.markAbsent(gone.map((p) => p.phone));
  const before = t.sim.checks.length;
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id)));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 3000);
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: 120, pending: 0, sent: 117, failed: 0, skipped: 3 });
  const skipped = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=skipped`, { token: await freshOwner(t, ws) });
  expect(skipped.body.data.map((r: any) => [r.phone, r.skippedReason]).sort()).toEqual(gone.map((p) => [p.phone, "not_on_network"]).sort());
  // nothing was queued for them, nothing reached the network
  const sentTo = new Set(simSent(dataDir).map((x) => x.to));
  for (const p of gone) expect(sentTo.has(p.phone)).toBe(false);
  expect(await t.deps.db.prepare(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`).get(id)).toEqual({ n: 117 });
  // 120 numbers: a handful of questions, not one per recipient
  const asked = t.sim.checks.slice(before);
  expect(asked.length).toBeLessThanOrEqual(5);
  expect(new Set(asked.flatMap((c) => c.phones)).size).toBe(120);
});

test("a campaign message the network refuses as not on it (the cached answer was older) also leaves its recipient skipped, not failed", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, 3);
  // answered "on the network" earlier today; the number left since
  await numberChecker(t.deps).check(ws.id, s.id, people.map((p) => p.phone));
  t.sim.markAbsent([people[1]!.phone]);
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id)));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 3000);
  const c = await campaign(t, ws, id);
  expect(c.stats).toMatchObject({ total: 3, sent: 2, failed: 0, skipped: 1 });
  const skipped = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=skipped`, { token: await freshOwner(t, ws) });
  expect(skipped.body.data.map((r: any) => [r.phone, r.skippedReason])).toEqual([[people[1]!.phone, "not_on_network"]]);
});

test("expired answers are dropped by the periodic prune, fresh ones kept", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  await numberChecker(t.deps).check(ws.id, s.id, ["919811100020", "919811100021"]);
  const mine = async () => (await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM number_checks WHERE workspace_id = ?").get(ws.id))?.n;
  const now = t.clock.now().getTime();
  await pruneChecks(t.deps.db, now);
  expect(await mine()).toBe(2);
  // other tests' answers expire too: at least these two go
  expect(await pruneChecks(t.deps.db, now + 86_400_001)).toBeGreaterThanOrEqual(2);
  expect(await mine()).toBe(0);
});
