// Goals as ratios to the machine's bare baselines. The issues state some goals as absolute
// figures (5,000 sends/s, p99 < 20 ms, ...) measured on one reference machine; on another
// machine they hold only relative to its speed. So each absolute goal becomes a ratio: the goal
// divided by the reference machine's bare figure for the same baseline (REFERENCE, the bare
// baselines of the pass that set the goals), and is checked against Parley / bare measured in
// this run. The absolute figure is printed beside it, and whether it was met in absolute terms.

/** The reference machine's bare baselines (same bench, same baseline, the pass that set the goals). */
export const REFERENCE = {
  /** bare Bun.serve + one committed INSERT (send.bench) */
  bareInsertPerS: 28_340,
  /** bare insert server p99 at half of Parley's max rate (send.bench) */
  bareInsertP99Ms: 5.5,
  /** bare loop: SELECT head, sim send, UPDATE sent (drain.bench) */
  bareDrainPerS: 25_451,
  /** bare relay: fetch POST at the same rate, p99 (inbound.bench) */
  bareRelayP99Ms: 0.49,
};

const n = (x: number) => (x >= 100 ? Math.round(x).toLocaleString("en") : x.toFixed(2));

/** A throughput goal: `absolute` per second on the reference machine whose bare did `referenceBare`. */
export function goalOf(value: number, bare: number, absolute: number, referenceBare: number, unit = "/s"): { goal: string; met: boolean } {
  const ratio = absolute / referenceBare;
  const met = value / bare >= ratio;
  return {
    goal: `≥ ${ratio.toFixed(3)} of bare (${n(absolute)}${unit} on the reference machine, ${n(ratio * bare)}${unit} here); absolute ≥ ${n(absolute)}${unit}: ${value >= absolute ? "met" : "not met"}`,
    met,
  };
}

/** A latency goal: below `absoluteMs` on the reference machine whose bare took `referenceBareMs`; ratio = bare / Parley. */
export function latencyGoal(valueMs: number, bareMs: number, absoluteMs: number, referenceBareMs: number): { goal: string; met: boolean } {
  const ratio = referenceBareMs / absoluteMs;
  const met = bareMs / valueMs >= ratio;
  return {
    goal: `bare/Parley ≥ ${ratio.toFixed(4)} (< ${n(absoluteMs)} ms on the reference machine, < ${n(bareMs / ratio)} ms here); absolute < ${n(absoluteMs)} ms: ${valueMs < absoluteMs ? "met" : "not met"}`,
    met,
  };
}
