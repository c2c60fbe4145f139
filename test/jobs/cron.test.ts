import { describe, expect, test } from "bun:test";
import { nextRun, parseCron } from "../../src/jobs/cron.ts";

const at = (iso: string) => Date.parse(iso);
const next = (pattern: string, iso: string) => new Date(nextRun(parseCron(pattern), at(iso))).toISOString();

describe("periodic cron patterns (UTC)", () => {
  test("every 30 seconds", () => {
    expect(next("*/30 * * * * *", "2026-11-23T10:00:00.000Z")).toBe("2026-11-23T10:00:30.000Z");
    expect(next("*/30 * * * * *", "2026-11-23T10:00:29.999Z")).toBe("2026-11-23T10:00:30.000Z");
    expect(next("*/30 * * * * *", "2026-11-23T10:59:45.000Z")).toBe("2026-11-23T11:00:00.000Z");
    expect(next("*/30 * * * * *", "2026-11-23T23:59:30.000Z")).toBe("2026-11-24T00:00:00.000Z");
  });
  test("every minute and every n minutes (five fields: second 0)", () => {
    expect(next("* * * * *", "2026-11-23T10:00:00.000Z")).toBe("2026-11-23T10:01:00.000Z");
    expect(next("* * * * *", "2026-11-23T10:00:59.500Z")).toBe("2026-11-23T10:01:00.000Z");
    expect(next("*/10 * * * *", "2026-11-23T10:05:00.000Z")).toBe("2026-11-23T10:10:00.000Z");
    expect(next("*/15 * * * *", "2026-11-23T10:50:00.000Z")).toBe("2026-11-23T11:00:00.000Z");
  });
  test("a minute of every hour", () => {
    expect(next("41 * * * *", "2026-11-23T10:40:59.000Z")).toBe("2026-11-23T10:41:00.000Z");
    expect(next("41 * * * *", "2026-11-23T10:41:00.000Z")).toBe("2026-11-23T11:41:00.000Z");
    expect(next("23 * * * *", "2026-11-23T23:30:00.000Z")).toBe("2026-11-24T00:23:00.000Z");
  });
  test("a time of every day, across month and year ends", () => {
    expect(next("41 3 * * *", "2026-11-23T03:00:00.000Z")).toBe("2026-11-23T03:41:00.000Z");
    expect(next("41 3 * * *", "2026-11-23T03:41:00.000Z")).toBe("2026-11-24T03:41:00.000Z");
    expect(next("17 3 * * *", "2026-11-30T12:00:00.000Z")).toBe("2026-12-01T03:17:00.000Z");
    expect(next("23 4 * * *", "2026-12-31T05:00:00.000Z")).toBe("2027-01-01T04:23:00.000Z");
  });
  test("agrees with a second-by-second search", () => {
    const patterns = ["*/30 * * * * *", "* * * * *", "*/10 * * * *", "*/15 * * * *", "41 * * * *", "41 3 * * *", "7 */20 */5 * * *", "*/7 5 * * * *"];
    const matches = (t: ReturnType<typeof parseCron>, ms: number) => {
      const d = new Date(ms);
      const ok = (f: { step?: number; value?: number }, v: number) => (f.step === undefined ? v === f.value : v % f.step === 0);
      return ok(t.second, d.getUTCSeconds()) && ok(t.minute, d.getUTCMinutes()) && ok(t.hour, d.getUTCHours());
    };
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    for (const p of patterns) {
      const t = parseCron(p);
      for (let i = 0; i < 20; i++) {
        const after = Date.UTC(2026, 10, 23) + Math.floor(random() * 2 * 86_400_000);
        let want = Math.floor(after / 1000) * 1000 + 1000;
        while (!matches(t, want)) want += 1000;
        expect(nextRun(t, after)).toBe(want);
      }
    }
  });
  test("anything else is refused when parsed, not misread", () => {
    for (const p of ["0 0 1 * *", "0 9 * * MON", "1-5 * * * *", "*/0 * * * *", "60 * * * *", "* * *", "0 0 25 * * *"])
      expect(() => parseCron(p)).toThrow(/unsupported cron/);
  });
});
