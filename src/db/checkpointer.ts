import type { Database } from "bun:sqlite";
import { WAL_HEADER, walIndexView } from "./wal-index.ts";

/**
 * WAL checkpoints off the event loop. SQLite checkpoints inside the COMMIT that takes the WAL
 * past `wal_autocheckpoint` pages (1,000 by default): it copies the WAL into the database file
 * and fsyncs both, 10–45 ms on the bench machine, several times a second under a send load,
 * and the event loop serves nothing meanwhile (it was most of the send p99). Here a worker
 * thread with a connection of its own runs a PASSIVE checkpoint every `everyMs` (10): it never
 * takes the write lock, so commits go on while it copies and syncs, and when it caught up
 * between two commits the next one starts the WAL over from its beginning. The main connection
 * keeps an automatic checkpoint at BACKSTOP_PAGES (≈40 MB of WAL), for a WAL that was not
 * started over in time or a worker that is gone; the worker checkpointing often keeps what that
 * one has left to copy small (every 50 ms, a backstop checkpoint still blocked a commit 12–80 ms).
 * When idle, a tick finds nothing to copy and syncs nothing.
 * What a commit promises is unchanged (synchronous=NORMAL never synced a commit; checkpoints
 * still sync). The worker's code is a string (a Blob URL), so the compiled binary needs no
 * second entry point.
 */
const BACKSTOP_PAGES = 10_000;
const DEFAULT_PAGES = 1_000;

const WORKER = `
import { Database } from "bun:sqlite";
let db, timer;
const checkpoint = () => db.query("PRAGMA wal_checkpoint(PASSIVE)").values()[0];
self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.open) {
      db = new Database(m.open, { readwrite: true, create: false });
      db.exec("PRAGMA busy_timeout = 0");
      timer = setInterval(() => { try { checkpoint(); } catch {} }, m.everyMs);
      postMessage({ ready: true });
    } else if (m.now) {
      postMessage({ id: m.now, result: checkpoint() });
    } else if (m.stop) {
      clearInterval(timer);
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

/** Starts checkpointing `path` (the file `sqlite` has open, in WAL mode) from a worker thread. */
export function startCheckpointer(sqlite: Database, path: string, o: { everyMs?: number } = {}): Checkpointer {
  const worker = new Worker(URL.createObjectURL(new Blob([WORKER], { type: "text/javascript" })));
  // Bun's Worker: it must not keep a process alive that is otherwise done
  (worker as unknown as { unref(): void }).unref();
  const waiting = new Map<number, { resolve(v: [number, number, number]): void; reject(e: Error): void }>();
  let next = 0;
  let stopped: (() => void) | undefined;
  let running = false;
  const backstop = (pages: number) => sqlite.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
  worker.onmessage = (e: MessageEvent) => {
    const m = e.data as { ready?: true; stopped?: true; id?: number; result?: [number, number, number]; error?: string };
    if (m.ready) {
      running = true;
      backstop(BACKSTOP_PAGES);
    } else if (m.stopped) stopped?.();
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
  worker.postMessage({ open: path, everyMs: o.everyMs ?? 10 });
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
    },
  };
}

/** WAL frames (pages) since the WAL last started over that wake the worker: ≈1 MiB of writes. */
const BUSY_FRAMES = 256;
const POLL_MS = 250;

/**
 * The checkpointer of a server: the worker thread (a JavaScript VM of its own, several MiB)
 * starts only once the database is written to at a rate worth it, when the WAL holds
 * BUSY_FRAMES frames at a look every POLL_MS (read from the mapped WAL-index header, no
 * system call); an idle or lightly used server checkpoints in its commits as SQLite does by
 * default (1,000 pages, a few ms), as does one whose WAL index is not mapped (nothing polls
 * then). Once started the worker stays.
 */
export function checkpointWhenBusy(sqlite: Database, path: string, o: { everyMs?: number; pollMs?: number } = {}): Checkpointer & { readonly started: boolean } {
  let worker: Checkpointer | undefined;
  const header = walIndexView(path);
  const poll =
    header &&
    setInterval(() => {
      if (header.getUint32(WAL_HEADER.frames, true) < BUSY_FRAMES) return;
      clearInterval(poll!);
      worker = startCheckpointer(sqlite, path, o);
    }, o.pollMs ?? POLL_MS);
  poll?.unref();
  return {
    get started() {
      return worker !== undefined;
    },
    checkpoint() {
      return worker ? worker.checkpoint() : Promise.reject(new Error("the checkpointer has not started"));
    },
    async stop() {
      if (poll) clearInterval(poll);
      await worker?.stop();
    },
  };
}
