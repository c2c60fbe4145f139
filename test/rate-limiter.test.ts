import { describe, expect, test } from "bun:test";
import { ManualClock } from "../src/clock.ts";
import { AppError } from "../src/errors.ts";
import { RateLimiter } from "../src/rate-limiter.ts";

/** The error `fn` throws (it must throw). */
function thrown(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error("expected a throw");
}

describe("RateLimiter: one type for the request rate and the auth throttles", () => {
  test("hit: a refused request is not counted, and the window resets on time", () => {
    const clock = new ManualClock(0);
    const l = new RateLimiter(clock, 1, 10_000);
    expect(l.hit("k").allowed).toBe(true);
    for (let i = 0; i < 5; i++) expect(l.hit("k")).toEqual({ allowed: false, limit: 1, remaining: 0, resetSeconds: 10 });
    clock.advance(10_000);
    expect(l.hit("k")).toEqual({ allowed: true, limit: 1, remaining: 0, resetSeconds: 10 });
  });

  test("take: 429 RATE_LIMITED with Retry-After and the caller's message", () => {
    const clock = new ManualClock(0);
    const l = new RateLimiter(clock, 1, 60_000);
    l.take("ip");
    clock.advance(30_500);
    const err = thrown(() => l.take("ip", "slow down"));
    expect(err.code).toBe("RATE_LIMITED");
    expect(err.message).toBe("slow down");
    expect(err.headers?.["Retry-After"]).toBe("30");
  });

  test("check counts nothing; add counts without refusing; clear forgets; keys are apart", () => {
    const clock = new ManualClock(0);
    const l = new RateLimiter(clock, 2, 900_000);
    l.check("a");
    l.add("a");
    l.add("a");
    l.add("a"); // past the limit: still counted, never refused
    expect(thrown(() => l.check("a", "Too many failed logins; retry later")).code).toBe("RATE_LIMITED");
    l.check("b");
    l.clear("a");
    l.check("a");
  });

  test("a clock set back before a window's start starts a new window", () => {
    const clock = new ManualClock(100_000);
    const l = new RateLimiter(clock, 1, 60_000);
    l.take("k");
    expect(l.hit("k").allowed).toBe(false);
    clock.advance(-1);
    expect(l.hit("k").allowed).toBe(true);
  });

  test("many distinct keys: spent windows are swept, live ones kept", () => {
    const clock = new ManualClock(0);
    const l = new RateLimiter(clock, 1, 1_000);
    const size = () => (l as unknown as { windows: Map<string, unknown> }).windows.size;
    for (let i = 0; i < 9_999; i++) l.hit(`old${i}`);
    clock.advance(500);
    l.hit("live");
    clock.advance(600); // the old windows are spent, "live" is not
    expect(size()).toBe(10_000);
    l.hit("new"); // the 10,000 mark: a sweep first
    expect(size()).toBe(2);
    expect(l.hit("live").allowed).toBe(false);
  });
});
