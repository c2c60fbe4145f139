/**
 * The write lock between the main thread's SQLite connection and a worker thread of the same
 * process that writes the same file through a connection of its own (the search index's
 * follower: src/modules/messages/text-index-worker.ts). SQLite would order the two by itself,
 * but the main thread waits for SQLite's lock in SQLite's busy handler, which sleeps: the event
 * loop would stop for 1–10 ms at a time while the worker commits. Taking this lock first, the
 * main thread waits with Atomics.waitAsync instead (the event loop goes on serving; only the
 * transaction waits) and SQLite's own lock is then always free between the two (other
 * processes, such as an operator command, still meet busy_timeout).
 *
 * The state lives in a SharedArrayBuffer of four int32 slots:
 *   [HOLDER] 0 free, 1 the main thread holds it, 2 the worker does;
 *   [WORKER_WANTS] 1 while the worker waits for it;
 *   [MAIN_WAITS] how many of the main thread's transactions wait for it;
 *   [STOP] 1 asks the worker to stop after what it holds (read by the worker between pieces).
 * Fairness: the main thread's free path gives way to a waiting worker, and the worker, before it
 * asks again, lets a waiting main thread in first; so under a steady load the two take turns,
 * one main transaction (a whole send group) against one piece of the worker's.
 * Every wait has a timeout and looks again: a lost wake-up costs at most that timeout.
 */
export const HOLDER = 0;
export const WORKER_WANTS = 1;
export const MAIN_WAITS = 2;
export const STOP = 3;
const FREE = 0;
const MAIN = 1;
const WORKER = 2;
/** The longest the main thread waits before it looks again (ms). */
const RECHECK_MS = 20;

export class ThreadWriteLock {
  readonly buffer = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
  private readonly a = new Int32Array(this.buffer);

  /** Takes the lock if it is free and no worker waits for it: the main thread's path without a wait. */
  tryTake(): boolean {
    return Atomics.load(this.a, WORKER_WANTS) === 0 && Atomics.compareExchange(this.a, HOLDER, FREE, MAIN) === FREE;
  }

  /** Takes the lock, waiting without blocking the event loop. */
  async take(): Promise<void> {
    if (this.tryTake()) return;
    const a = this.a;
    Atomics.add(a, MAIN_WAITS, 1);
    try {
      for (;;) {
        const holder = Atomics.load(a, HOLDER);
        if (holder === FREE) {
          // a worker that asked first goes first: wait until it holds the lock (it clears its flag then)
          if (Atomics.load(a, WORKER_WANTS) === 1) await Atomics.waitAsync(a, WORKER_WANTS, 1, RECHECK_MS).value;
          else if (Atomics.compareExchange(a, HOLDER, FREE, MAIN) === FREE) return;
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
    if (Atomics.load(this.a, WORKER_WANTS) === 1) Atomics.notify(this.a, HOLDER);
  }

  /** Asks the worker to stop after the piece it is on; `reset` clears it for a new worker. */
  askStop(stop = true): void {
    Atomics.store(this.a, STOP, stop ? 1 : 0);
    Atomics.notify(this.a, MAIN_WAITS);
    Atomics.notify(this.a, HOLDER);
  }

  /**
   * After a worker was terminated: a lock it still held (a terminated thread cannot give it back)
   * is freed. SQLite's own lock went with the worker's connection.
   */
  forget(): void {
    Atomics.compareExchange(this.a, HOLDER, WORKER, FREE);
    Atomics.store(this.a, WORKER_WANTS, 0);
    Atomics.notify(this.a, WORKER_WANTS);
    Atomics.notify(this.a, HOLDER);
  }
}

/**
 * The worker's side, as source for a worker built from a string (the compiled binary has no
 * second entry point): `take(a)` and `give(a)` over the same Int32Array. The worker may block
 * (Atomics.wait): it has no event loop work of its own while it waits.
 */
export const WORKER_SIDE = `
const take = (a) => {
  // a main thread that waits goes first; then ask, and wait for the holder to give it back
  for (let n; (n = Atomics.load(a, ${MAIN_WAITS})) > 0 && Atomics.load(a, ${STOP}) === 0; ) Atomics.wait(a, ${MAIN_WAITS}, n, ${RECHECK_MS});
  Atomics.store(a, ${WORKER_WANTS}, 1);
  for (let h; (h = Atomics.compareExchange(a, ${HOLDER}, ${FREE}, ${WORKER})) !== ${FREE}; ) Atomics.wait(a, ${HOLDER}, h, ${RECHECK_MS});
  Atomics.store(a, ${WORKER_WANTS}, 0);
  Atomics.notify(a, ${WORKER_WANTS});
};
const give = (a) => {
  Atomics.store(a, ${HOLDER}, ${FREE});
  Atomics.notify(a, ${HOLDER});
};
const mainWaits = (a) => Atomics.load(a, ${MAIN_WAITS}) > 0;
const stopAsked = (a) => Atomics.load(a, ${STOP}) === 1;
`;
