import { describe, expect, test } from "bun:test";
import { dayOf, daysBetween, isCalendarDay, nextDay, startOfDay } from "../../../src/modules/analytics/days.ts";

describe("calendar days of a time zone", () => {
  test("first instant of a day, across daylight saving changes", () => {
    expect(startOfDay("2026-03-01", "UTC")).toBe(Date.UTC(2026, 2, 1));
    expect(startOfDay("2026-03-01", "Asia/Kolkata")).toBe(Date.UTC(2026, 1, 28, 18, 30));
    // New York moves to summer time on 8 March 2026 at 02:00
    expect(startOfDay("2026-03-08", "America/New_York")).toBe(Date.UTC(2026, 2, 8, 5));
    expect(startOfDay("2026-03-09", "America/New_York")).toBe(Date.UTC(2026, 2, 9, 4));
    expect(startOfDay("2026-10-25", "Europe/Berlin")).toBe(Date.UTC(2026, 9, 24, 22));
    expect(startOfDay("2026-10-26", "Europe/Berlin")).toBe(Date.UTC(2026, 9, 25, 23));
  });

  test("the day of an instant, and day arithmetic", () => {
    expect(dayOf(Date.UTC(2026, 2, 1, 18, 30), "Asia/Kolkata")).toBe("2026-03-02");
    expect(dayOf(Date.UTC(2026, 2, 1, 18, 29, 59, 999), "Asia/Kolkata")).toBe("2026-03-01");
    expect(nextDay("2028-02-28")).toBe("2028-02-29");
    expect(daysBetween("2026-03-02", "2026-03-01")).toBe(-1);
    expect(isCalendarDay("2026-02-29")).toBe(false);
    expect(isCalendarDay("2028-02-29")).toBe(true);
  });
});
