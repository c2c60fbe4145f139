import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/clock.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, waitFor } from "../messages/helpers.ts";
import { seedMessage } from "./seed.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let s1: { id: string; phone: string };
let foreign: { id: string; phone: string };

const at = (day: number, h: number, m = 0, s = 0, ms = 0) => Date.UTC(2026, 2, day, h, m, s, ms);
const get = (query: string, token = ws.owner.token) => t.request("GET", `/api/v1/analytics/messages${query}`, { token });
const days = async (query: string) => {
  const r = await get(query);
  expect(r.status).toBe(200);
  return r.body.data as Record<string, unknown>[];
};

beforeAll(async () => {
  t = await createTestApp({ clock: new ManualClock(at(10, 12)), config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { autoReceipts: false } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  s1 = await connectedSession(t, ws);
  foreign = await connectedSession(t, other);
  const gone = Bun.randomUUIDv7(); // a deleted session's history still counts for the workspace
  const [a, b, c, d, e, f] = [0, 1, 2, 3, 4, 5].map(() => Bun.randomUUIDv7()) as [string, string, string, string, string, string];
  const seed = (m: Parameters<typeof seedMessage>[2]) => seedMessage(t, ws.id, m);
  // just before 1 March (UTC): 05:29 on 1 March in India
  await seed({ sessionId: s1.id, conversationId: e, direction: "inbound", at: at(1, 0) - 1 });
  // a campaign message, then an answer nobody replied to
  await seed({ sessionId: s1.id, conversationId: d, direction: "outbound", at: at(1, 9), deliveredAt: at(1, 9, 1), campaignId: Bun.randomUUIDv7() });
  await seed({ sessionId: s1.id, conversationId: d, direction: "inbound", at: at(1, 9, 30) });
  // two questions in a row, answered 5 minutes after the first; a reaction is not counted
  await seed({ sessionId: s1.id, conversationId: a, direction: "inbound", at: at(1, 10) });
  await seed({ sessionId: s1.id, conversationId: a, direction: "inbound", at: at(1, 10, 1) });
  await seed({ sessionId: s1.id, conversationId: a, direction: "inbound", at: at(1, 10, 2), type: "reaction" });
  await seed({ sessionId: s1.id, conversationId: a, direction: "outbound", at: at(1, 10, 5), deliveredAt: at(1, 10, 6), readAt: at(1, 10, 7) });
  await seed({ sessionId: s1.id, conversationId: c, direction: "outbound", at: at(1, 12), status: "failed" });
  await seed({ sessionId: gone, conversationId: f, direction: "inbound", at: at(1, 11) });
  // asked late on 1 March (UTC), answered 40 minutes later on 2 March
  await seed({ sessionId: s1.id, conversationId: b, direction: "inbound", at: at(1, 23, 30) });
  await seed({ sessionId: s1.id, conversationId: b, direction: "outbound", at: at(2, 0, 10), deliveredAt: at(2, 0, 11), readAt: at(2, 1) });
});
afterAll(() => t.close());

describe("GET /api/v1/analytics/messages", () => {
  test("per UTC day: outbound by how far it got, inbound received, median first response", async () => {
    expect(await days("?from=2026-03-01&to=2026-03-03")).toEqual([
      { date: "2026-03-01", sent: 2, delivered: 2, read: 1, failed: 1, received: 5, firstResponseSecondsMedian: 1350 },
      { date: "2026-03-02", sent: 1, delivered: 1, read: 1, failed: 0, received: 0, firstResponseSecondsMedian: null },
      { date: "2026-03-03", sent: 0, delivered: 0, read: 0, failed: 0, received: 0, firstResponseSecondsMedian: null },
    ]);
  });

  test("days of another time zone: India (+05:30) and New York (-05:00)", async () => {
    expect(await days("?from=2026-03-01&to=2026-03-02&timezone=Asia/Kolkata")).toEqual([
      { date: "2026-03-01", sent: 2, delivered: 2, read: 1, failed: 1, received: 5, firstResponseSecondsMedian: 300 },
      { date: "2026-03-02", sent: 1, delivered: 1, read: 1, failed: 0, received: 1, firstResponseSecondsMedian: 2400 },
    ]);
    expect(await days("?from=2026-02-28&to=2026-03-01&timezone=America/New_York")).toEqual([
      { date: "2026-02-28", sent: 0, delivered: 0, read: 0, failed: 0, received: 1, firstResponseSecondsMedian: null },
      { date: "2026-03-01", sent: 3, delivered: 3, read: 2, failed: 1, received: 5, firstResponseSecondsMedian: 1350 },
    ]);
  });

  test("without timezone the workspace's own time zone counts the days (UTC until it is set)", async () => {
    expect((await t.request("PATCH", "/api/workspace", { token: ws.owner.token, body: { timezone: "Asia/Kolkata" } })).status).toBe(200);
    try {
      expect(await days("?from=2026-03-01&to=2026-03-02")).toEqual(await days("?from=2026-03-01&to=2026-03-02&timezone=Asia/Kolkata"));
      // the request's zone wins over the workspace's
      const utc = await days("?from=2026-03-01&to=2026-03-01&timezone=UTC");
      expect(utc[0]).toMatchObject({ received: 5, firstResponseSecondsMedian: 1350 });
    } finally {
      expect((await t.request("PATCH", "/api/workspace", { token: ws.owner.token, body: { timezone: "UTC" } })).status).toBe(200);
    }
  });

  test("sessionId keeps one session's messages", async () => {
    const [first] = await days(`?from=2026-03-01&to=2026-03-01&sessionId=${s1.id}`);
    expect(first).toMatchObject({ sent: 2, received: 4, firstResponseSecondsMedian: 1350 });
  });

  test("defaults to the 30 days up to today", async () => {
    const list = await days("");
    expect(list).toHaveLength(30);
    expect(list[0]!.date).toBe("2026-02-09");
    expect(list[29]!.date).toBe("2026-03-10");
  });

  test("counts messages sent and answered through the network", async () => {
    t.sim.inbound(s1.id, { from: "919811122233", type: "text", text: "is anyone there?" });
    const conv = await waitFor(async () => (await t.request("GET", "/api/v1/inbox/conversations", { token: ws.owner.token })).body.data.find((c: { phone: string }) => c.phone === "919811122233"), "conversation");
    t.clock.advance(90_000);
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s1.id, to: "919811122233", body: "yes, how can we help?" } });
    expect(r.status).toBe(202);
    await drain(t);
    expect(conv.unreadCount).toBe(1);
    const [today] = await days("?from=2026-03-10&to=2026-03-10");
    expect(today).toEqual({ date: "2026-03-10", sent: 1, delivered: 0, read: 0, failed: 0, received: 1, firstResponseSecondsMedian: 90 });
  });

  test("another workspace sees none of it, and may not ask for this one's session", async () => {
    const r = await get("?from=2026-03-01&to=2026-03-01", other.owner.token);
    expect(r.body.data).toEqual([{ date: "2026-03-01", sent: 0, delivered: 0, read: 0, failed: 0, received: 0, firstResponseSecondsMedian: null }]);
    const mine = await get(`?sessionId=${s1.id}`, other.owner.token);
    expect(mine.status).toBe(404);
    expect(mine.body.code).toBe("NOT_FOUND");
    expect((await get(`?sessionId=${foreign.id}`)).status).toBe(404);
  });

  test("every member reads; no credential is 401", async () => {
    for (const role of ["admin", "agent", "viewer"] as const) {
      const m = await ws.member(role);
      expect((await get("?from=2026-03-01&to=2026-03-01", m.token)).status).toBe(200);
    }
    expect((await t.request("GET", "/api/v1/analytics/messages")).status).toBe(401);
  });

  test("bad input: 400 naming the field", async () => {
    const cases: [string, string][] = [
      ["?from=2026-02-30", "from"],
      ["?from=1%20March", "from"],
      ["?to=2026-13-01", "to"],
      ["?from=2026-03-02&to=2026-03-01", "to"],
      ["?from=2025-03-01&to=2026-03-02", "to"],
      ["?timezone=Mars/Olympus", "timezone"],
      ["?sessionId=nope", "sessionId"],
    ];
    for (const [query, field] of cases) {
      const r = await get(query);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    // 366 days, both ends included, is the longest range
    expect((await get("?from=2025-03-02&to=2026-03-02")).status).toBe(200);
  });
});
