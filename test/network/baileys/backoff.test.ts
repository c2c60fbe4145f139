import { expect, test } from "bun:test";
import { ReconnectPolicy } from "../../../src/network/baileys/backoff.ts";

const opts = { baseMs: 100, maxMs: 1_000, maxAttempts: 6, linkingMaxAttempts: 2, stableMs: 5_000, jitter: 0.3 };

test("exponential, capped, then gives up", () => {
  const top = new ReconnectPolicy(opts, () => 0); // no jitter drawn: the ceilings
  expect(Array.from({ length: 7 }, () => top.next())).toEqual([100, 200, 400, 800, 1000, 1000, null]);
  const bottom = new ReconnectPolicy(opts, () => 1); // the most jitter
  expect(Array.from({ length: 3 }, () => bottom.next())).toEqual([70, 140, 280]);
});

test("jitter spreads delays but never below (1 - jitter) of the step, and they grow until the cap", () => {
  for (let run = 0; run < 200; run++) {
    const p = new ReconnectPolicy(opts);
    const delays: number[] = [];
    for (let d = p.next(); d !== null; d = p.next()) delays.push(d);
    expect(delays).toHaveLength(6);
    delays.forEach((d, i) => {
      const ceiling = Math.min(1_000, 100 * 2 ** i);
      expect(d).toBeGreaterThanOrEqual(Math.floor(ceiling * 0.7));
      expect(d).toBeLessThanOrEqual(ceiling);
      if (i && ceiling < 1_000) expect(d).toBeGreaterThanOrEqual(delays[i - 1]!);
    });
  }
});

test("linking a new device has the shorter budget", () => {
  const p = new ReconnectPolicy(opts, () => 0);
  expect([p.next(true), p.next(true), p.next(true)]).toEqual([100, 200, null]);
});

test("a stable connection resets the count; a flapping one does not", () => {
  const p = new ReconnectPolicy(opts, () => 0);
  p.next();
  p.next();
  p.opened(10_000);
  p.closed(10_500); // up for 0.5 s: still flapping
  expect(p.next()).toBe(400);
  p.opened(20_000);
  p.closed(25_000); // up for 5 s: stable
  expect(p.attempt).toBe(0);
  expect(p.next()).toBe(100);
  p.reset();
  expect(p.attempt).toBe(0);
});

test("jitter above 0.5 is refused (it could make delays shrink)", () => {
  expect(() => new ReconnectPolicy({ jitter: 0.8 })).toThrow(/jitter/);
});

test("by default a linked session never gives up: at the cap it waits about maxMs before every retry", () => {
  const { maxAttempts: _, ...unbounded } = opts;
  const p = new ReconnectPolicy(unbounded, () => 0.5);
  const delays = Array.from({ length: 200 }, () => p.next());
  expect(delays.slice(0, 4)).toEqual([85, 170, 340, 680]);
  expect(delays.slice(4).every((d) => d === 850)).toBe(true); // 1000 with half the 30 % jitter
  expect(p.next(true)).toBeNull(); // linking keeps its small budget
});
