// Long work in slices: a slice runs at most SLICE_MS, then the event loop takes its turn. On SQLite
// every statement is synchronous and `await` of a resolved promise is a microtask, so a loop of
// awaited statements never lets a request in by itself: it must give way explicitly (see
// docs/no-stalls.md).

/** The longest a slice of long work holds the event loop before it gives way. */
export const SLICE_MS = 10;

/** Gives the event loop a turn (timers, I/O, other requests), then resumes. */
export function giveWay(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A time budget for one slice of database work: `spent()` says when it is used up. On SQLite the
 * statements run on the event loop, so their time is the loop's; on PostgreSQL each one awaits the
 * server (the loop is free meanwhile) and the budget never runs out: a batch there is bounded by
 * its size alone, or it would be cut into a transaction per few rows.
 */
export function sliceBudget(engine: "sqlite" | "postgres", opts: { ms?: number; atLeast?: number } = {}): { spent(done: number): boolean } {
  if (engine === "postgres") return { spent: () => false };
  const end = performance.now() + (opts.ms ?? SLICE_MS);
  const atLeast = opts.atLeast ?? 1;
  // `atLeast` items per slice whatever the clock says: on a machine that gives the process a
  // fraction of a core, a slice of wall time holds a few rows, and the fixed cost of each
  // transaction (its reads before the rows) would then be most of the work
  return { spent: (done) => done >= atLeast && performance.now() >= end };
}

// The largest slice of each kind of long work in this process, in items (rows, recipients): a
// slice's bound is then checked by a count, not a clock (tests read it; it costs a map look-up).
const largest = new Map<string, number>();

/** Records that one slice of `kind` did `items`. */
export function sliceDone(kind: string, items: number): void {
  if (items > (largest.get(kind) ?? 0)) largest.set(kind, items);
}

/** The most items one slice of `kind` did since the start (or `resetSlices`). */
export function largestSlice(kind: string): number {
  return largest.get(kind) ?? 0;
}

/** Forgets the recorded slices. */
export function resetSlices(): void {
  largest.clear();
}
