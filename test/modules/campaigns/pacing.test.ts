import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../../src/clock.ts";
import { dailyCap, nextGapMs, quietUntil } from "../../../src/modules/campaigns/pacing.ts";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "../messages/helpers.ts";
import { advanceUntil, campaign, campaignBody, freshOwner, newCampaign, seedContacts, settle, simSent } from "./helpers.ts";

const DAY = 86_400_000;

describe("pacing rules", () => {
  test("gaps: 60 s / perMinute, varied by at most jitterPercent", () => {
    expect(nextGapMs({ perMinute: 20, jitterPercent: 0 })).toBe(3000);
    for (let i = 0; i < 200; i++) {
      const g = nextGapMs({ perMinute: 20, jitterPercent: 30 });
      expect(g).toBeGreaterThanOrEqual(2100);
      expect(g).toBeLessThanOrEqual(3900);
    }
    expect(nextGapMs({ perMinute: 20, jitterPercent: 30 }, () => 0)).toBe(2100);
    expect(nextGapMs({ perMinute: 20, jitterPercent: 30 }, () => 1)).toBe(3900);
  });
  test("warm-up: 50 a day on days 1-2 since first connected, 200 on days 3-5, 500 on days 6-10, then the campaign's cap", () => {
    const first = Date.UTC(2026, 0, 1, 12);
    const cap = (day: number, p = { dailyCapPerSession: 1000, warmup: true }) => dailyCap(p, first, first + (day - 1) * DAY + 1000);
    expect([1, 2, 3, 5, 6, 10, 11, 40].map((d) => cap(d))).toEqual([50, 50, 200, 200, 500, 500, 1000, 1000]);
    expect(cap(1, { dailyCapPerSession: 20, warmup: true })).toBe(20);
    expect(cap(1, { dailyCapPerSession: 1000, warmup: false })).toBe(1000);
  });
  test("quiet hours in the campaign's time zone, across midnight", () => {
    const q = { start: "21:00", end: "08:00", timezone: "Asia/Kolkata" }; // UTC+05:30
    expect(quietUntil(q, Date.UTC(2026, 2, 10, 16, 0))).toBe(Date.UTC(2026, 2, 11, 2, 30)); // 21:30 IST
    expect(quietUntil(q, Date.UTC(2026, 2, 10, 20, 0))).toBe(Date.UTC(2026, 2, 11, 2, 30)); // 01:30 IST
    expect(quietUntil(q, Date.UTC(2026, 2, 10, 10, 0))).toBeNull(); // 15:30 IST
    expect(quietUntil({ start: "12:00", end: "14:00", timezone: "UTC" }, Date.UTC(2026, 2, 10, 13, 15, 20))).toBe(Date.UTC(2026, 2, 10, 14, 0));
    expect(quietUntil(null, Date.now())).toBeNull();
  });
});

const dataDir = mkdtempSync(join(tmpdir(), "parley-campaign-pacing-"));
// 2026-03-10 09:00 UTC = 14:30 in Kolkata
const clock = new ManualClock(Date.UTC(2026, 2, 10, 9, 0));
const t = await createTestApp({ clock, config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { dataDir } });
afterAll(() => t.close());

async function setup(n: number, pacing: Record<string, unknown>, extra: Record<string, unknown> = {}, start = true) {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, n);
  const phones = new Set(people.map((p) => p.phone));
  const sent = () => simSent(dataDir).filter((x) => phones.has(x.to)).length;
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id), { pacing: { perMinute: 600, jitterPercent: 0, warmup: false, ...pacing }, ...extra }), start);
  return { ws, s, id, sent };
}

test("quiet hours: the campaign stays running with waitingUntil, and sends when they end", async () => {
  clock.set(Date.UTC(2026, 2, 10, 16, 0)); // 21:30 in Kolkata
  const { ws, id, sent } = await setup(5, { quietHours: { start: "21:00", end: "08:00", timezone: "Asia/Kolkata" } });
  await settle(t);
  const waiting = await campaign(t, ws, id);
  expect(waiting.status).toBe("running");
  expect(waiting.waitingUntil).toBe(new Date(Date.UTC(2026, 2, 11, 2, 30)).toISOString());
  expect(waiting.waitingReason).toMatchObject({ code: "quiet_hours", allowance: null });
  expect(waiting.waitingReason.message).toContain("21:00 to 08:00, Asia/Kolkata");
  clock.set(Date.UTC(2026, 2, 11, 2, 29));
  await settle(t);
  expect(sent()).toBe(0);
  await advanceUntil(t, 1000, async () => (await campaign(t, ws, id)).status === "completed", 200);
  expect(sent()).toBe(5);
  expect((await campaign(t, ws, id)).waitingUntil).toBeNull();
  expect((await campaign(t, ws, id)).waitingReason).toBeNull();
});

test("daily cap per session: it stops at the cap, waits for the next UTC day, then goes on", async () => {
  clock.set(Date.UTC(2026, 2, 12, 22, 0));
  const { ws, id, sent } = await setup(12, { dailyCapPerSession: 5 });
  await advanceUntil(t, 200, async () => sent() >= 5 && (await campaign(t, ws, id)).waitingUntil !== null, 200);
  for (let i = 0; i < 20; i++) {
    clock.advance(60_000);
    await settle(t);
  }
  expect(sent()).toBe(5);
  const c = await campaign(t, ws, id);
  expect(c.status).toBe("running");
  expect(c.waitingUntil).toBe(new Date(Date.UTC(2026, 2, 13)).toISOString());
  expect(c.waitingReason).toMatchObject({ code: "daily_cap", allowance: 5 });
  clock.set(Date.UTC(2026, 2, 13, 0, 0, 1));
  await advanceUntil(t, 200, () => sent() >= 10, 200);
  for (let i = 0; i < 10; i++) {
    clock.advance(60_000);
    await settle(t);
  }
  expect(sent()).toBe(10);
});

test("warm-up: a number first connected today sends 50 campaign messages; on its third day up to 200", async () => {
  clock.set(Date.UTC(2026, 2, 20, 6, 0));
  const { ws, s, id, sent } = await setup(260, { warmup: true, dailyCapPerSession: 1000 });
  await advanceUntil(t, 200, async () => (await campaign(t, ws, id)).waitingUntil !== null, 2000);
  expect(sent()).toBe(50);
  // the campaign says why it stalled: warm-up, with today's allowance
  const day1 = await campaign(t, ws, id);
  expect(day1.waitingReason).toMatchObject({ code: "warmup", allowance: 50 });
  expect(day1.waitingReason.message).toContain("day 1");
  // the same number two days later: day 3 of its life
  clock.set(Date.UTC(2026, 2, 22, 6, 0));
  await t.deps.db.prepare("UPDATE chat_sessions SET first_connected_at = ? WHERE id = ?").run(Date.UTC(2026, 2, 20, 5, 0), s.id);
  await advanceUntil(t, 200, async () => sent() >= 250 && (await campaign(t, ws, id)).waitingUntil !== null, 3000);
  expect(sent()).toBe(250);
  expect((await campaign(t, ws, id)).waitingReason).toMatchObject({ code: "warmup", allowance: 200 });
  // 250 messages through the campaign loop: about 5 s on PostgreSQL on a loaded 2-core machine,
  // past bun's default limit; the limit is the harness's, not a figure the test checks
}, 30_000);

test("first_connected_at is set once, when a session first connects, and kept across reconnects", async () => {
  const ws = await createWorkspace(t);
  const { linkSession, newSession } = await import("../sessions/helpers.ts");
  const sid = await newSession(t, ws);
  await linkSession(t, ws, sid, "919812300077");
  const first = (await t.deps.db.prepare("SELECT first_connected_at AS f FROM chat_sessions WHERE id = ?").get(sid) as { f: number }).f;
  expect(first).toBe(clock.now().getTime());
  clock.advance(DAY);
  expect((await t.request("POST", `/api/v1/chatapp/${sid}/disconnect`, { token: await freshOwner(t, ws) })).status).toBe(200);
  await linkSession(t, ws, sid, "919812300077");
  expect((await t.deps.db.prepare("SELECT first_connected_at AS f FROM chat_sessions WHERE id = ?").get(sid) as { f: number }).f).toBe(first);
});

test("scheduled start: nothing before schedule.at, then it runs", async () => {
  clock.set(Date.UTC(2026, 3, 1, 8, 0));
  const at = "2026-04-01T15:30:00+05:30"; // 10:00 UTC
  const { ws, id, sent } = await setup(4, {}, { schedule: { at, maxLatenessMinutes: 60 } });
  expect((await campaign(t, ws, id)).status).toBe("scheduled");
  expect((await campaign(t, ws, id)).stats.total).toBe(4); // frozen at start
  for (let i = 0; i < 12; i++) {
    clock.advance(10 * 60_000 - 1);
    await settle(t);
  }
  expect(clock.now().getTime()).toBeLessThan(Date.UTC(2026, 3, 1, 10, 0));
  expect(sent()).toBe(0);
  clock.set(Date.UTC(2026, 3, 1, 10, 0, 1));
  await advanceUntil(t, 200, async () => (await campaign(t, ws, id)).status === "completed", 200);
  expect(sent()).toBe(4);
});

test("missed schedule: a server down past schedule.at + maxLatenessMinutes pauses it instead of firing late", async () => {
  clock.set(Date.UTC(2026, 4, 1, 8, 0));
  const { ws, id, sent } = await setup(3, {}, { schedule: { at: "2026-05-01T09:00:00Z", maxLatenessMinutes: 15 } });
  clock.set(Date.UTC(2026, 4, 1, 9, 20)); // nothing ran between: the server was down
  await settle(t);
  const c = await campaign(t, ws, id);
  expect(c).toMatchObject({ status: "paused", pausedReason: "missed_schedule" });
  expect(sent()).toBe(0);
  // a person decides: resume sends now
  expect((await t.request("POST", `/api/v1/campaigns/${id}/resume`, { token: await freshOwner(t, ws) })).body.data.status).toBe("running");
  await advanceUntil(t, 200, async () => (await campaign(t, ws, id)).status === "completed", 200);
  expect(sent()).toBe(3);
});

test("starting a draft whose schedule already passed beyond its lateness pauses it at once (missed_schedule)", async () => {
  clock.set(Date.UTC(2026, 5, 1, 12, 0));
  const { ws, id } = await setup(2, {}, { schedule: { at: "2026-06-01T10:00:00Z", maxLatenessMinutes: 60 } });
  expect(await campaign(t, ws, id)).toMatchObject({ status: "paused", pausedReason: "missed_schedule" });
});
