// CPU time a process spent (user + system, from /proc/<pid>/stat), for CPU per request: on a
// shared machine a server's throughput moves with the other load, the CPU it spends per request
// much less, so the comparison with the previous release is made on both.
import { readFileSync } from "node:fs";

const TICK_MS = 1000 / 100; // USER_HZ, 100 on Linux

/** The process's CPU time so far, ms (NaN where /proc is missing). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** Runs `load` and returns its result with the CPU µs per request the process `pid` spent on it. */
export async function withCpu<T extends { rps: number }>(pid: number, seconds: number, load: () => Promise<T>): Promise<T & { cpuUs: number }> {
  const before = cpuMs(pid);
  const r = await load();
  const used = cpuMs(pid) - before;
  return { ...r, cpuUs: (used * 1000) / Math.max(1, r.rps * seconds) };
}

/**
 * Waits until the process `pid` is idle: less than `below` of a core over a `windowMs` window,
 * for at most `maxMs`. Returns the ms waited. Benches that interleave servers call it after each
 * measurement, so the next one is not measured while the last works off what it was sent (a
 * webhook backlog, a queue): on a 2-core machine that work took the next server's CPU.
 */
export async function untilIdle(pid: number, o: { windowMs?: number; below?: number; maxMs?: number } = {}): Promise<number> {
  const windowMs = o.windowMs ?? 500;
  const below = o.below ?? 0.05;
  const maxMs = o.maxMs ?? 30_000;
  const start = performance.now();
  for (;;) {
    const before = cpuMs(pid);
    await Bun.sleep(windowMs);
    const used = cpuMs(pid) - before;
    if (!(used >= below * windowMs) || performance.now() - start >= maxMs) return Math.round(performance.now() - start);
  }
}
