import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../../src/clock.ts";
import { localWeekMinute, withinHours } from "../../../src/modules/automations/hours.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, waitFor } from "../messages/helpers.ts";

// Berlin leaves summer time on Sunday 25 October 2026 at 03:00 (to 02:00) and enters it on 29 March 2026 at 02:00 (to 03:00).
const clock = new ManualClock(Date.UTC(2026, 9, 23, 12, 0));
let t: TestApp;
let ws: TestWorkspace;
let session: { id: string };
let seq = 0;
const token = () => accessToken(t, ws.owner.userId, ws.id, "owner");
const weekdays = { from: "09:00", to: "17:00" };
beforeAll(async () => {
  t = await createTestApp({ clock });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
  expect((await t.request("PATCH", "/api/workspace", { token: await token(), body: { timezone: "Europe/Berlin" } })).status).toBe(200);
  const hours = { mon: [weekdays], tue: [weekdays], wed: [weekdays], thu: [weekdays], fri: [weekdays], sat: [weekdays], sun: [{ from: "09:00", to: "12:00" }, { from: "13:00", to: "24:00" }] };
  const r = await t.request("POST", "/api/v1/automations", { token: await token(), body: { name: "Away", trigger: { type: "away", hours }, reply: { body: "We are closed" }, cooldownMinutes: 0 } });
  expect(r.status).toBe(201);
});
afterAll(() => t.close());

/** An inbound message at a fixed UTC time: whether the away reply answered it. */
async function answeredAt(utc: number): Promise<boolean> {
  clock.set(utc);
  const from = `9196${String(1_000_000 + ++seq).padStart(8, "0")}`;
  const events = recordEvents(t);
  t.sim.inbound(session.id, { from, type: "text", text: "hello" });
  await waitFor(() => events.some((e) => e.event === "message_received" && e.data.from === from), "message_received");
  for (let i = 0; i < 2; i++) {
    clock.advance(10_000);
    await drain(t);
  }
  return t.sim.sent.some((m) => m.message.to === from && m.message.text === "We are closed");
}

test("away answers only outside the hours, read on the workspace's clock across the autumn DST change", async () => {
  // Saturday 24 Oct, summer time (UTC+2): 06:30 UTC is 08:30 local (closed), 07:30 UTC is 09:30 (open)
  expect(await answeredAt(Date.UTC(2026, 9, 24, 6, 30))).toBe(true);
  expect(await answeredAt(Date.UTC(2026, 9, 24, 7, 30))).toBe(false);
  // Sunday 25 Oct, winter time from 01:00 UTC (UTC+1): the same 07:30 UTC is now 08:30 local, closed
  expect(await answeredAt(Date.UTC(2026, 9, 25, 7, 30))).toBe(true);
  expect(await answeredAt(Date.UTC(2026, 9, 25, 8, 30))).toBe(false);
  // the Sunday lunch gap 12:00-13:00 local, and open to midnight
  expect(await answeredAt(Date.UTC(2026, 9, 25, 11, 30))).toBe(true);
  expect(await answeredAt(Date.UTC(2026, 9, 25, 22, 59))).toBe(false);
  // Monday 00:00 local (23:00 UTC Sunday) is Monday's: closed before 09:00
  expect(await answeredAt(Date.UTC(2026, 9, 25, 23, 0))).toBe(true);
  // a range's end is outside it: 16:59 local is open, 17:00 closed
  expect(await answeredAt(Date.UTC(2026, 9, 26, 15, 59))).toBe(false);
  expect(await answeredAt(Date.UTC(2026, 9, 26, 16, 0))).toBe(true);
});

test("the local clock follows the platform's tz data on both changes of the year", () => {
  expect(localWeekMinute(Date.UTC(2026, 2, 29, 0, 59), "Europe/Berlin")).toEqual({ day: "sun", minute: 1 * 60 + 59 });
  expect(localWeekMinute(Date.UTC(2026, 2, 29, 1, 0), "Europe/Berlin")).toEqual({ day: "sun", minute: 3 * 60 });
  expect(localWeekMinute(Date.UTC(2026, 9, 25, 0, 59), "Europe/Berlin")).toEqual({ day: "sun", minute: 2 * 60 + 59 });
  expect(localWeekMinute(Date.UTC(2026, 9, 25, 1, 0), "Europe/Berlin")).toEqual({ day: "sun", minute: 2 * 60 });
  const hours = { sun: [{ from: "02:00", to: "03:00" }] };
  // on the spring night the hour 02:00-03:00 does not exist: never inside
  expect(withinHours(hours, Date.UTC(2026, 2, 29, 0, 59), "Europe/Berlin")).toBe(false);
  expect(withinHours(hours, Date.UTC(2026, 2, 29, 1, 0), "Europe/Berlin")).toBe(false);
  expect(withinHours({ mon: [weekdays] }, Date.UTC(2026, 5, 1, 7, 0), "Asia/Kolkata")).toBe(true); // 12:30 IST Monday
});
