import { readFileSync, writeSync } from "node:fs";
// Start-up trace: with PARLEY_START_MARKS set, each step of a start writes one line to stderr,
// `mark <ms since the process began> <CPU ms of the process so far> <CPU ms of the main thread so far> <step>`
// (docs/benchmarks.md, "Where a start goes"). The process's CPU counts its helper threads too (the
// collector, the JIT compilers), which run while the main thread waits: the main thread's column
// is the one a request waits for. Without the variable, a mark is one check of a constant.
const on = !!process.env.PARLEY_START_MARKS;

/** CPU ms of the calling thread (Linux: its schedstat), or -1 where there is none. */
function threadCpuMs(): number {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "latin1").split(" ")[0]) / 1e6;
  } catch {
    return -1;
  }
}

/** Writes the start-up mark `what` (only with PARLEY_START_MARKS). */
export function mark(what: string): void {
  if (!on) return;
  const cpu = process.cpuUsage();
  // to the descriptor: building process.stderr would cost the start ≈5 ms the trace would count
  writeSync(2, `mark ${performance.now().toFixed(1)} ${((cpu.user + cpu.system) / 1000).toFixed(1)} ${threadCpuMs().toFixed(1)} ${what}\n`);
}

mark("first module");
