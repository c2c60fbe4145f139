import { describe, expect, test } from "bun:test";
import { IdleRelease, processProbe, type IdleProbe, type IdleReleaseOptions } from "../../cli/idle-release.ts";

const MiB = 1024 * 1024;
const o: IdleReleaseOptions = { windowMs: 10_000, quietShare: 0.02, quietWindows: 3 };
/** CPU of a window: 2 % of 10 s is 200 ms */
const BUSY_US = 500_000;
const QUIET_US = 40_000;

/** A process whose CPU time and resident size the test moves; a release drops it to `releasedTo` and costs 10 ms of CPU. */
function fakeProcess(rss: number, releasedTo: number) {
  const p = { cpu: 0, rss, releases: 0 };
  const probe: IdleProbe = {
    cpuMicros: () => p.cpu,
    rssBytes: () => p.rss,
    release() {
      p.releases++;
      p.cpu += 10_000;
      p.rss = releasedTo;
    },
  };
  return { p, probe };
}

/** Runs windows of the given CPU µs; returns what each tick returned. */
function windows(policy: IdleRelease, p: { cpu: number }, ...cpu: number[]) {
  return cpu.map((us) => {
    p.cpu += us;
    return policy.tick();
  });
}

describe("idle release", () => {
  test("a server that worked and went quiet releases once, after the quiet windows", () => {
    const { p, probe } = fakeProcess(54 * MiB, 60 * MiB);
    const policy = new IdleRelease(probe, o);
    p.rss = 86 * MiB;
    expect(windows(policy, p, BUSY_US, QUIET_US, QUIET_US, QUIET_US)).toEqual([null, null, null, { before: 86 * MiB }]);
    expect(p.releases).toBe(1);
    // still quiet: no second release (its own CPU time did not count as work)
    expect(windows(policy, p, ...Array(10).fill(QUIET_US))).toEqual(Array(10).fill(null));
    expect(p.releases).toBe(1);
  });

  test("released again after the next stretch of work", () => {
    const { p, probe } = fakeProcess(54 * MiB, 60 * MiB);
    const policy = new IdleRelease(probe, o);
    windows(policy, p, BUSY_US, QUIET_US, QUIET_US, QUIET_US);
    p.rss = 75 * MiB;
    expect(windows(policy, p, QUIET_US, BUSY_US, BUSY_US, QUIET_US, QUIET_US, QUIET_US)).toEqual([null, null, null, null, null, { before: 75 * MiB }]);
    expect(p.releases).toBe(2);
  });

  test("never under load", () => {
    const { p, probe } = fakeProcess(54 * MiB, 50 * MiB);
    const policy = new IdleRelease(probe, o);
    expect(windows(policy, p, ...Array(20).fill(BUSY_US))).toEqual(Array(20).fill(null));
    expect(p.releases).toBe(0);
  });

  test("one window of work starts the quiet count again", () => {
    const { p, probe } = fakeProcess(54 * MiB, 50 * MiB);
    const policy = new IdleRelease(probe, o);
    expect(windows(policy, p, BUSY_US, QUIET_US, QUIET_US, BUSY_US, QUIET_US, QUIET_US)).toEqual(Array(6).fill(null));
    expect(windows(policy, p, QUIET_US)).toEqual([{ before: 54 * MiB }]);
  });

  test("a server that did no work (or a trickle under the quiet share) is left alone", () => {
    const { p, probe } = fakeProcess(54 * MiB, 50 * MiB);
    const policy = new IdleRelease(probe, o);
    expect(windows(policy, p, ...Array(20).fill(190_000))).toEqual(Array(20).fill(null));
    expect(p.releases).toBe(0);
  });

  test("the process probe reads this process and its release runs", () => {
    const before = processProbe.cpuMicros();
    let x = 0;
    for (let i = 0; i < 2_000_000; i++) x += i % 7;
    expect(x).toBeGreaterThan(0);
    expect(processProbe.cpuMicros()).toBeGreaterThan(before);
    expect(processProbe.rssBytes()).toBeGreaterThan(10 * MiB);
    processProbe.release();
    expect(processProbe.rssBytes()).toBeGreaterThan(10 * MiB);
  });
});
