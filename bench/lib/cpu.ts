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
