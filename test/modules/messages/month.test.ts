import { expect, test } from "bun:test";
import { monthOf } from "../../../src/modules/messages/service.ts";

test("monthOf answers the UTC month of any time, across month and year ends, whatever it answered before", () => {
  const iso = (t: number) => new Date(t).toISOString().slice(0, 7);
  for (let t = Date.UTC(1999, 0, 1); t < Date.UTC(2031, 0, 1); t += 3_600_000 * 7 + 13) expect(monthOf(t)).toBe(iso(t));
  // going back and forth over the edges (a test clock may move backwards)
  for (const t of [Date.UTC(2026, 11, 1), Date.UTC(2026, 11, 1) - 1, Date.UTC(2026, 11, 1), Date.UTC(2027, 0, 1) - 1, Date.UTC(2027, 0, 1), 0, -1, Date.UTC(2024, 1, 29, 12)]) {
    expect(monthOf(t)).toBe(iso(t));
  }
});
