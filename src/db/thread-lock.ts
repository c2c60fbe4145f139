/**
 * The write lock between the main thread's SQLite connection and the worker threads of the same
 * process that write the same file through connections of their own (the search index's
 * follower, src/modules/messages/text-index-worker.ts) or must keep commits out for a moment
 * (the WAL checkpointer's restart, checkpointer.ts). SQLite would order them by itself, but the
 * main thread waits for SQLite's lock in SQLite's busy handler, which sleeps: the event loop
 * would stop for 1–10 ms at a time. Taking this lock first, the main thread waits with
 * Atomics.waitAsync instead (the event loop goes on serving; only the transaction waits), and
 * SQLite's own lock is then always free between them (other processes, such as an operator
 * command, still meet busy_timeout).
 *
 * The state lives in a SharedArrayBuffer of int32 slots:
 *   [HOLDER] 0 free, 1 the main thread holds it, else the id of the worker that does;
 *   [WORKERS_WANT] how many workers wait for it;
 *   [MAIN_WAITS] how many of the main thread's transactions wait for it;
 *   [STOP + id] 1 asks worker `id` to stop after what it holds (read by the worker between pieces).
 * Fairness: the main thread gives way once to waiting workers, and a worker, before it asks, lets
 * a waiting main thread in first; under a steady load they take turns, one main transaction (a
 * whole send group) against one piece of a worker's. Every wait has a timeout and looks again:
 * a lost wake-up costs at most that timeout, and a worker terminated while it waited cannot hold
 * the main thread back for longer.
 */
export const HOLDER = 0;
export const WORKERS_WANT = 1;
export const MAIN_WAITS = 2;
export const STOP = 3;
const FREE = 0;
const MAIN = 1;
/** The ids of the workers (each its own, for HOLDER and its STOP slot). */
export const WORKER_ID = { searchIndex: 2, checkpointer: 3 } as const;
/** The longest a side waits before it looks again (ms). */
const RECHECK_MS = 20;

export class ThreadWriteLock {
  readonly buffer = new SharedArrayBuffer((STOP + 4) * Int32Array.BYTES_PER_ELEMENT);
  private readonly a = new Int32Array(this.buffer);

  /** Takes the lock if it is free and no worker waits for it: the main thread's path without a wait. */
  tryTake(): boolean {
    return Atomics.load(this.a, WORKERS_WANT) === 0 && Atomics.compareExchange(this.a, HOLDER, FREE, MAIN) === FREE;
  }

  /** Takes the lock, waiting without blocking the event loop. */
  async take(): Promise<void> {
    if (this.tryTake()) return;
    const a = this.a;
    Atomics.add(a, MAIN_WAITS, 1);
    let gaveWay = false;
    try {
      for (;;) {
        const holder = Atomics.load(a, HOLDER);
        if (holder === FREE) {
          // workers that asked first go first, once: until one of them holds the lock
          const wanting = Atomics.load(a, WORKERS_WANT);
          if (wanting > 0 && !gaveWay) {
            gaveWay = true;
            await Atomics.waitAsync(a, WORKERS_WANT, wanting, RECHECK_MS).value;
          } else if (Atomics.compareExchange(a, HOLDER, FREE, MAIN) === FREE) return;
        } else await Atomics.waitAsync(a, HOLDER, holder, RECHECK_MS).value;
      }
    } finally {
      Atomics.sub(a, MAIN_WAITS, 1);
      Atomics.notify(a, MAIN_WAITS);
    }
  }

  /** Gives the lock back (the main thread, after its COMMIT or ROLLBACK). */
  release(): void {
    Atomics.store(this.a, HOLDER, FREE);
    if (Atomics.load(this.a, WORKERS_WANT) > 0) Atomics.notify(this.a, HOLDER);
  }

  /** Asks worker `id` to stop after the piece it is on (`false`: clears it for a new worker). */
  askStop(id: number, stop = true): void {
    Atomics.store(this.a, STOP + id, stop ? 1 : 0);
    Atomics.notify(this.a, MAIN_WAITS);
    Atomics.notify(this.a, HOLDER);
  }

  /** After worker `id` was terminated: the lock it may still hold (a terminated thread cannot give it back) is freed. */
  forget(id: number): void {
    if (Atomics.compareExchange(this.a, HOLDER, id, FREE) === id) Atomics.notify(this.a, HOLDER);
  }
}

/**
 * The workers' side, as source for a worker built from a string (the compiled binary has no
 * second entry point): `take(a, id)` and `give(a, id)` over the same Int32Array. A worker may
 * block (Atomics.wait): it has no event-loop work of its own while it waits.
 */
export const WORKER_SIDE = `
const stopAsked = (a, id) => Atomics.load(a, ${STOP} + id) === 1;
const mainWaits = (a) => Atomics.load(a, ${MAIN_WAITS}) > 0;
const take = (a, id) => {
  // a main thread that waits goes first; then ask, and wait for the holder to give it back
  for (let n; (n = Atomics.load(a, ${MAIN_WAITS})) > 0 && !stopAsked(a, id); ) Atomics.wait(a, ${MAIN_WAITS}, n, ${RECHECK_MS});
  Atomics.add(a, ${WORKERS_WANT}, 1);
  for (let h; (h = Atomics.compareExchange(a, ${HOLDER}, ${FREE}, id)) !== ${FREE}; ) Atomics.wait(a, ${HOLDER}, h, ${RECHECK_MS});
  Atomics.sub(a, ${WORKERS_WANT}, 1);
  Atomics.notify(a, ${WORKERS_WANT});
};
const give = (a, id) => {
  if (Atomics.compareExchange(a, ${HOLDER}, id, ${FREE}) === id) Atomics.notify(a, ${HOLDER});
};
`;
