// The binaries one bench compares, interleaved round by round: the current tree and the
// previous release (bench/run.ts builds both once and passes them in PARLEY_BENCH_BINS; a bench
// started on its own builds them itself, from the cache when it can). On PostgreSQL only the
// current tree is measured when the previous release predates PostgreSQL support.
import { currentBinary, DEFAULT_AGAINST, previousBinary, type Binary } from "./binaries.ts";
import { benchEngine } from "./engine.ts";

export function targets(): { current: Binary; previous?: Binary } {
  const given = process.env.PARLEY_BENCH_BINS;
  if (given) return JSON.parse(given) as { current: Binary; previous?: Binary };
  const current = currentBinary();
  if (benchEngine() === "postgres" && !process.env.PARLEY_BENCH_PREVIOUS_PG) return { current };
  return { current, previous: previousBinary(process.env.PARLEY_BENCH_AGAINST ?? DEFAULT_AGAINST) };
}
