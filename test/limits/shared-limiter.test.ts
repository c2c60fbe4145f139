import { afterAll, beforeAll, expect, test } from "bun:test";
import { limiterFor } from "../../src/limits/limiter.ts";
import { pruneRateWindows, SharedRateLimiter } from "../../src/limits/shared-limiter.ts";
import { RateLimiter } from "../../src/rate-limiter.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { testEngine } from "../helpers/postgres.ts";

// The limiter a store gets: in memory on SQLite (one process), in `rate_windows` on PostgreSQL,
// with the in-memory limiter's semantics (test/rate-limiter.test.ts) on the test's manual clock.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
const pgOnly = testEngine !== "postgres";

test("the engine picks the limiter: in memory on SQLite, shared through the database on PostgreSQL", () => {
  const l = limiterFor(t.deps.db, t.clock, "x", 5);
  expect(l).toBeInstanceOf(testEngine === "postgres" ? SharedRateLimiter : RateLimiter);
  expect(t.deps.limiters.user).toBeInstanceOf(testEngine === "postgres" ? SharedRateLimiter : RateLimiter);
});

test.skipIf(pgOnly)("PostgreSQL only (SQLite keeps its windows in memory): fixed windows per key in rows, on the injected clock", async () => {
  const l = new SharedRateLimiter(t.deps.db, t.clock, "win", 3, 60_000);
  const d1 = await l.hit("k");
  expect(d1).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  await l.hit("k");
  t.clock.advance(20_000);
  expect((await l.hit("k")).remaining).toBe(0);
  expect(await l.hit("k")).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 40 });
  expect((await l.hit("other")).allowed).toBe(true); // keys apart
  expect((await new SharedRateLimiter(t.deps.db, t.clock, "other-limiter", 3).hit("k")).allowed).toBe(true); // limiters apart
  await expect(l.take("k")).rejects.toMatchObject({ code: "RATE_LIMITED", status: 429 });
  t.clock.advance(40_000); // the window is over: a new one starts
  expect(await l.hit("k")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  t.clock.advance(-120_000); // a clock set back before the window's start starts a new one
  expect((await l.hit("k")).remaining).toBe(2);
  t.clock.advance(120_000);
});

test.skipIf(pgOnly)("PostgreSQL only (SQLite keeps its windows in memory): failed-login counting: add, check, clear; pruning deletes ended windows", async () => {
  const l = new SharedRateLimiter(t.deps.db, t.clock, "fail", 2, 15 * 60_000);
  await l.check("a@b|1.2.3.4");
  await l.add("a@b|1.2.3.4");
  await l.check("a@b|1.2.3.4");
  await l.add("a@b|1.2.3.4");
  await expect(l.check("a@b|1.2.3.4")).rejects.toMatchObject({ code: "RATE_LIMITED" });
  await l.clear("a@b|1.2.3.4");
  await l.check("a@b|1.2.3.4");
  await l.add("a@b|1.2.3.4");
  const count = async () => (await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM rate_windows WHERE key = 'fail:a@b|1.2.3.4'").get())!.n;
  await pruneRateWindows(t.deps.db, t.clock.nowMs() - 1);
  expect(await count()).toBe(1); // started now: kept
  t.clock.advance(16 * 60_000);
  expect(await pruneRateWindows(t.deps.db, t.clock.nowMs() - 15 * 60_000)).toBeGreaterThanOrEqual(1);
  expect(await count()).toBe(0);
});
