// Quiet hours across a daylight-saving change: the wait ends when the local clock reads `end`
// (not `end - start` wall minutes later, an hour off on change nights), never inside the hours.
import { expect, test } from "bun:test";
import { quietUntil } from "../../../src/modules/campaigns/pacing.ts";

const london = { start: "22:00", end: "07:00", timezone: "Europe/London" };

test("spring forward (London, 29 March 2026): quiet from 22:00 GMT ends at 07:00 BST = 06:00 UTC", () => {
  expect(quietUntil(london, Date.UTC(2026, 2, 28, 23, 0))).toBe(Date.UTC(2026, 2, 29, 6, 0));
  expect(quietUntil(london, Date.UTC(2026, 2, 29, 0, 30))).toBe(Date.UTC(2026, 2, 29, 6, 0));
});

test("fall back (London, 25 October 2026): quiet from 22:00 BST ends at 07:00 GMT = 07:00 UTC", () => {
  expect(quietUntil(london, Date.UTC(2026, 9, 24, 22, 0))).toBe(Date.UTC(2026, 9, 25, 7, 0));
});

test("an end inside the skipped hour: the wait ends after the gap, never inside the quiet hours", () => {
  const q = { start: "22:00", end: "01:30", timezone: "Europe/London" };
  const until = quietUntil(q, Date.UTC(2026, 2, 28, 23, 0))!;
  expect(quietUntil(q, until)).toBeNull();
  expect(until).toBeGreaterThan(Date.UTC(2026, 2, 29, 1, 0)); // 01:00 UTC is when 01:00 GMT became 02:00 BST
  expect(until).toBeLessThanOrEqual(Date.UTC(2026, 2, 29, 1, 30));
});

test("New York, spring forward (8 March 2026) on a window spanning midnight: 23:00-08:00 EST/EDT", () => {
  const q = { start: "23:00", end: "08:00", timezone: "America/New_York" };
  // 23:30 EST = 04:30 UTC; 08:00 EDT = 12:00 UTC
  expect(quietUntil(q, Date.UTC(2026, 2, 8, 4, 30))).toBe(Date.UTC(2026, 2, 8, 12, 0));
});
