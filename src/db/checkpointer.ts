import type { Database } from "bun:sqlite";
import { sourceWorker } from "./source-worker.ts";
import { WORKER_ID, WORKER_SIDE, type ThreadWriteLock } from "./thread-lock.ts";
import { WAL_HEADER, walIndexView } from "./wal-index.ts";

/**
 * WAL checkpoints off the event loop. SQLite checkpoints inside the COMMIT that takes the WAL
 * past `wal_autocheckpoint` pages (1,000 by default): it copies the WAL into the database file
 * and fsyncs both, 10–45 ms on the bench machine, several times a second under a send load,
 * and the event loop serves nothing meanwhile (it was most of the send p99). Here a worker
 * thread with a connection of its own runs a PASSIVE checkpoint every `everyMs` (10) while
 * commits come: it never takes the write lock, so commits go on while it copies and syncs, and
 * when it caught up between two commits the next one starts the WAL over from its beginning.
 * Under continuous commits it never catches up between two (a checkpoint covers the frames
 * there were when it began; more come while it copies), so the WAL only started over at the
 * main connection's automatic checkpoint at its backstop (10,000 pages then), in a COMMIT: 2–7 ms
 * of the event loop every ≈200 ms under a send load, the largest stalls left in the send p99.
 * Now, once the WAL is RESTART_FRAMES long, the worker finishes its checkpoint holding the
 * store's thread write lock (thread-lock.ts): no commit comes in between, the checkpoint covers
 * every frame, and the next commit starts the WAL over. The main thread's transactions wait for
 * the lock meanwhile (only they: the event loop goes on). The backstop stays, for a worker that
 * is gone or a store without the lock. Each such turn holds the lock about 2.5 ms (the frames
 * committed meanwhile copied, and both files synced): at 8,000 frames it came about five times a
 * second under the send bench's half rate, and the server's transactions waited for it 1.1–1.3 %
 * of the time, right where the p99 is; at RESTART_FRAMES (30,000) it comes four times less
 * often, for a WAL file of up to ≈120 MB under such a load (≈160 MB at the backstop). (Tried:
 * starting the WAL over from the worker itself: the lock was held longer, up to 6 ms.)
 * Once writes stop, the thread must not wake 100 times a second for nothing: a tick whose
 * checkpoint answers as the last one did (nothing committed since) waits twice as long, up to
 * `maxMs` (POLL_MS); any new frame brings it back to `everyMs`. (The worker cannot look at the
 * WAL-index header itself: mapping it would drop SQLite's locks, see wal-index.ts.) After
 * IDLE_MS of that, a server stops the thread and its memory altogether (checkpointWhenBusy).
 * Frames are not counted exactly: a WAL started over to the same length looks unchanged for
 * one tick, which only waits once more.
 * What a commit promises is unchanged (synchronous=NORMAL never synced a commit; checkpoints
 * still sync). The worker's code is a string (source-worker.ts).
 */
export const BACKSTOP_PAGES = 40_000;
/**
 * A WAL this long that the worker's checkpoint did not finish (commits came meanwhile) is
 * finished under the thread write lock, so that the next commit starts it over (below the
 * backstop, which then stays for a worker that is gone).
 */
const RESTART_FRAMES = 30_000;
const DEFAULT_PAGES = 1_000;
/** How often the WAL is looked at when nothing is written: the header poll, the idle worker's longest wait. */
const POLL_MS = 250;

const WORKER = `
import { Database } from "bun:sqlite";
${WORKER_SIDE}
const ID = ${WORKER_ID.checkpointer};
let db, timer, a, restartFrames, ticks = 0;
const checkpoint = () => {
  const r = db.query("PRAGMA wal_checkpoint(PASSIVE)").values()[0];
  // [busy, frames, frames checkpointed] as the checkpoint began: commits made while it copied are
  // not in it, so "all of them" does not mean the WAL can start over; under the lock it does
  if (!a || r[1] < restartFrames) return r;
  // the rest, with no commit coming in between (the main thread's transactions wait, its event loop does not)
  take(a, ID);
  try {
    return db.query("PRAGMA wal_checkpoint(PASSIVE)").values()[0];
  } finally {
    give(a, ID);
  }
};
const run = (o) => {
  let wait = o.everyMs, last = "", quiet = performance.now();
  const tick = () => {
    const t = performance.now();
    let now = "";
    try { now = String(checkpoint()); ticks++; } catch {}
    if (now !== last) { last = now; quiet = t; wait = o.everyMs; }
    else if (t - quiet >= o.idleMs) return postMessage({ idle: true, ticks });
    else wait = Math.min(wait * 2, o.maxMs);
    // from the tick's start, as an interval: a long copy and sync does not stretch the busy cadence
    timer = setTimeout(tick, Math.max(0, t + wait - performance.now()));
  };
  timer = setTimeout(tick, wait);
};
self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.open) {
      if (m.lock) a = new Int32Array(m.lock);
      restartFrames = m.restartFrames;
      db = new Database(m.open, { readwrite: true, create: false });
      db.exec("PRAGMA busy_timeout = 0");
      run(m);
      postMessage({ ready: true });
    } else if (m.now) {
      postMessage({ id: m.now, result: checkpoint() });
    } else if (m.stop) {
      clearTimeout(timer);
      db?.close();
      postMessage({ stopped: true });
    }
  } catch (err) {
    postMessage({ id: m.now, error: String(err) });
  }
};`;

export interface Checkpointer {
  /** One PASSIVE checkpoint now, in the worker: [busy, WAL frames, frames checkpointed] (tests). */
  checkpoint(): Promise<[number, number, number]>;
  /** Stops the worker (before the main connection closes) and gives the checkpoints back to the main connection. */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** the interval while commits come (ms) */
  everyMs?: number;
  /** the longest wait between two ticks that found nothing new (ms) */
  maxMs?: number;
  /** after this long with nothing new the worker stops ticking and calls onIdle (ms; default never) */
  idleMs?: number;
  /** the worker went idle after `ticks` timed checkpoints; startCheckpointer's caller stops it, checkpointWhenBusy has */
  onIdle?(ticks: number): void;
  /** the store's thread write lock (sqlite.ts: threadWriteLock), asked for when the worker starts: with it, a long WAL is started over without a checkpoint in a commit */
  lock?: () => ThreadWriteLock | undefined;
  /** the WAL's length (frames) from which a checkpoint is finished under that lock (RESTART_FRAMES) */
  restartFrames?: number;
}

/** Starts checkpointing `path` (the file `sqlite` has open, in WAL mode) from a worker thread. */
export function startCheckpointer(sqlite: Database, path: string, o: CheckpointerOptions = {}): Checkpointer {
  const worker = sourceWorker(WORKER);
  // made when the first worker starts (sqlite.ts: from then on the store's transactions take it)
  const lock = o.lock?.();
  const waiting = new Map<number, { resolve(v: [number, number, number]): void; reject(e: Error): void }>();
  let next = 0;
  let stopped: (() => void) | undefined;
  let running = false;
  const backstop = (pages: number) => sqlite.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
  worker.onmessage = (e: MessageEvent) => {
    const m = e.data as { ready?: true; stopped?: true; idle?: true; ticks?: number; id?: number; result?: [number, number, number]; error?: string };
    if (m.ready) {
      running = true;
      backstop(BACKSTOP_PAGES);
    } else if (m.stopped) stopped?.();
    else if (m.idle) o.onIdle?.(m.ticks!);
    else if (m.id) {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error) w?.reject(new Error(m.error));
      else w?.resolve(m.result!);
    }
  };
  // a worker that failed to open leaves the checkpoints where they were: in the commits
  worker.onerror = () => {
    if (running) backstop(DEFAULT_PAGES);
    running = false;
  };
  worker.postMessage({ open: path, lock: lock?.buffer, restartFrames: o.restartFrames ?? RESTART_FRAMES, everyMs: o.everyMs ?? 10, maxMs: o.maxMs ?? POLL_MS, idleMs: o.idleMs ?? Infinity });
  return {
    checkpoint() {
      const id = ++next;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ now: id });
      });
    },
    async stop() {
      if (running) backstop(DEFAULT_PAGES);
      running = false;
      const done = new Promise<void>((resolve) => (stopped = resolve));
      worker.postMessage({ stop: true });
      await Promise.race([done, Bun.sleep(1_000)]);
      worker.terminate();
      lock?.forget(WORKER_ID.checkpointer);
    },
  };
}

/** WAL frames (pages) written since the header poll began that wake the worker: ≈1 MiB of writes. */
const BUSY_FRAMES = 256;
/** A worker that found nothing new for this long is stopped. */
const IDLE_MS = 30_000;

/**
 * The checkpointer of a server: the worker thread (a JavaScript VM of its own, several MiB)
 * runs only while the database is written to at a rate worth it. It starts once BUSY_FRAMES
 * new frames are in the WAL at a look every POLL_MS (read from the mapped WAL-index header, no
 * system call) and is stopped again after IDLE_MS with nothing new, back to the poll; meanwhile
 * an idle or lightly used server checkpoints in its commits as SQLite does by default (1,000
 * pages, a few ms), as does one whose WAL index is not mapped (nothing polls then).
 */
export function checkpointWhenBusy(sqlite: Database, path: string, o: CheckpointerOptions & { pollMs?: number } = {}): Checkpointer & { readonly started: boolean } {
  let worker: Checkpointer | undefined;
  let resting: Promise<void> | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const header = walIndexView(path);
  const read = (at: number) => header!.getUint32(at, true);
  /** Where the WAL stands now: frames up to here are not new (left by the last run, or checkpointed by the worker going idle). */
  const mark = () => (header ? { frames: read(WAL_HEADER.frames), salt: read(WAL_HEADER.salt) } : undefined);
  const watch = (from = mark()) => {
    if (!from || closed) return;
    let base = from.frames;
    const salt = from.salt;
    poll = setInterval(() => {
      // the WAL started over (maybe grown past `base` again since the last look): every frame in it is new
      if (read(WAL_HEADER.salt) !== salt) base = 0;
      if (read(WAL_HEADER.frames) - base < BUSY_FRAMES) return;
      clearInterval(poll);
      worker = startCheckpointer(sqlite, path, { idleMs: IDLE_MS, ...o, onIdle: rest });
    }, o.pollMs ?? POLL_MS);
    poll.unref();
  };
  const rest = (ticks: number) => {
    const idle = worker;
    worker = undefined;
    // marked now, not once the worker has stopped: writes made while it stops are new ones
    const from = mark();
    resting = idle?.stop().then(() => watch(from));
    o.onIdle?.(ticks);
  };
  watch();
  return {
    /** the worker is running now */
    get started() {
      return worker !== undefined;
    },
    checkpoint() {
      return worker ? worker.checkpoint() : Promise.reject(new Error("the checkpointer is not running"));
    },
    async stop() {
      closed = true;
      clearInterval(poll);
      const running = worker;
      worker = undefined;
      await resting;
      await running?.stop();
    },
  };
}
