import { afterAll, beforeAll, expect, test } from "bun:test";
import { limiterFor } from "../../src/limits/limiter.ts";
import { blockSize } from "../../src/limits/leases.ts";
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

test("block sizes: an eighth of what is left above the last quarter of the limit, at most 1,000; one unit (the exact statement) near the limit and for small limits", () => {
  expect(blockSize(1000, 0)).toBe(93); // (1000 - 250) / 8
  expect(blockSize(1000, 700)).toBe(6);
  expect(blockSize(1000, 734)).toBe(2);
  expect(blockSize(1000, 735)).toBe(1); // 15 left above the zone: an eighth is less than two
  expect(blockSize(1000, 999)).toBe(1);
  expect(blockSize(1000, 1000)).toBe(1);
  expect(blockSize(1_000_000, 0)).toBe(1000);
  for (const limit of [1, 3, 10, 20]) expect(blockSize(limit, 0)).toBe(1);
  expect(blockSize(600, 0)).toBe(56); // the default per-minute limit
});

test.skipIf(pgOnly)("PostgreSQL only (SQLite keeps its windows in memory): far from the limit a node takes a block of the window in one statement and spends it in memory; the row counts what the nodes took", async () => {
  const rowCount = async (key: string) => (await t.deps.db.prepare<{ count: number }>("SELECT count FROM rate_windows WHERE key = ?").get(key))?.count;
  const a = new SharedRateLimiter(t.deps.db, t.clock, "blocks", 1000, 60_000);
  const first = await a.hit("k");
  expect(first).toMatchObject({ allowed: true, remaining: 999 });
  expect(await rowCount("blocks:k")).toBe(93); // one block taken
  for (let i = 1; i < 93; i++) expect((await a.hit("k")).allowed).toBe(true);
  expect(await rowCount("blocks:k")).toBe(93); // spent in memory: no statement
  expect((await a.hit("k")).remaining).toBe(1000 - 94);
  expect(await rowCount("blocks:k")).toBe(93 + blockSize(1000, 93)); // the next block, smaller
  // a second node shares the row: its block comes after the first node's
  const b = new SharedRateLimiter(t.deps.db, t.clock, "blocks", 1000, 60_000);
  await b.hit("k");
  expect(await rowCount("blocks:k")).toBe(93 + blockSize(1000, 93) + blockSize(1000, 0));
  // the window ends: the unspent units are dropped and the next request opens a new window with a new block
  t.clock.advance(60_000);
  expect(await a.hit("k")).toMatchObject({ allowed: true, remaining: 999, resetSeconds: 60 });
  expect(await rowCount("blocks:k")).toBe(93);
  // clear forgets the node's block too
  await a.clear("k");
  expect(await a.hit("k")).toMatchObject({ allowed: true, remaining: 999 });
  expect(await rowCount("blocks:k")).toBe(93);
});

test.skipIf(pgOnly)("PostgreSQL only (SQLite keeps its windows in memory): three nodes' limiters hit one key in parallel far past the limit: exactly the limit is allowed, and every request is allowed until then", async () => {
  const nodes = [0, 1, 2].map(() => new SharedRateLimiter(t.deps.db, t.clock, "parallel", 300, 60_000));
  const decisions = await Promise.all(Array.from({ length: 500 }, (_, i) => nodes[i % 3]!.hit("k")));
  expect(decisions.filter((d) => d.allowed).length).toBe(300);
  // requests one by one, round robin, up to limit-1 of a new window: none refused; then a race at the last unit: one success
  t.clock.advance(60_000);
  for (let i = 0; i < 299; i++) expect((await nodes[i % 3]!.hit("k")).allowed).toBe(true);
  const race = await Promise.all(Array.from({ length: 50 }, (_, i) => nodes[i % 3]!.hit("k")));
  expect(race.filter((d) => d.allowed).length).toBe(1);
  t.clock.advance(60_000);
});
