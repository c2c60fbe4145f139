import { writeSync } from "node:fs";
// Start-up trace: with PARLEY_START_MARKS set, each step of a start writes one line to stderr,
// `mark <ms since the process began> <CPU ms of the process so far> <step>` (docs/benchmarks.md,
// "Where a start goes"). Without it, a mark is one check of a constant.
const on = !!process.env.PARLEY_START_MARKS;

/** Writes the start-up mark `what` (only with PARLEY_START_MARKS). */
export function mark(what: string): void {
  if (!on) return;
  const cpu = process.cpuUsage();
  // to the descriptor: building process.stderr would cost the start ≈5 ms the trace would count
  writeSync(2, `mark ${performance.now().toFixed(1)} ${((cpu.user + cpu.system) / 1000).toFixed(1)} ${what}\n`);
}

mark("first module");
