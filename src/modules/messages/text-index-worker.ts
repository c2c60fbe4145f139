import type { DB } from "../../db/store.ts";
import { sourceWorker } from "../../db/source-worker.ts";
import { threadWriteLock } from "../../db/sqlite.ts";
import { WORKER_ID, WORKER_SIDE, type ThreadWriteLock } from "../../db/thread-lock.ts";
import { TEXT_INDEX_BATCH, TEXT_INDEX_MERGE_PAGES, TEXT_INDEX_SQL } from "./fts-repo.ts";

/** Messages one statement of the worker adds to the index: between two, it gives way to a waiting main thread. */
const CHUNK = 50;

// The worker: a connection of its own to the same file, the same statements as fts-repo.ts's, in
// pieces of one transaction each under the thread lock. A piece adds up to TEXT_INDEX_BATCH
// messages, CHUNK at a time, and commits early when the main thread waits for the lock; a merge
// piece is one FTS5 'merge' step. Its commits are not synced (synchronous=NORMAL, like the main
// connection's) and never checkpoint (the main connection and the checkpointer do).
const WORKER = `
import { Database } from "bun:sqlite";
${WORKER_SIDE}
const ID = ${WORKER_ID.searchIndex};
let db, a, q, o;
const piece = (fn) => {
  take(a, ID);
  try {
    q.begin.run();
    try {
      const r = fn();
      q.commit.run();
      return r;
    } catch (err) {
      if (db.inTransaction) q.rollback.run();
      throw err;
    }
  } finally {
    give(a, ID);
  }
};
const index = () => {
  let covered = 0;
  for (;;) {
    if (stopAsked(a, ID)) return covered;
    const r = piece(() => {
      const from = q.mark.get().at, last = q.last.get().at ?? 0;
      let mark = from;
      for (let n = 0; mark < last && n < o.batch; n += o.chunk) {
        const to = q.nth.get(mark, o.chunk - 1)?.at ?? last;
        q.add.run(mark, to);
        mark = to;
        if (mainWaits(a)) break;
      }
      if (mark > from) q.move.run(mark);
      return { covered: mark - from, more: mark < last };
    });
    covered += r.covered;
    if (!r.more) return covered;
  }
};
const merge = () => {
  let steps = 0;
  while (!stopAsked(a, ID) && piece(() => {
    const before = q.changes.get().n;
    q.merge.run(o.mergePages);
    return q.changes.get().n - before >= 2;
  })) steps++;
  return steps;
};
self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.open) {
      o = m;
      a = new Int32Array(m.lock);
      db = new Database(m.open, { readwrite: true, create: false });
      db.exec("PRAGMA busy_timeout = 5000");
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("PRAGMA wal_autocheckpoint = 0");
      q = { begin: db.prepare("BEGIN IMMEDIATE"), commit: db.prepare("COMMIT"), rollback: db.prepare("ROLLBACK") };
      for (const [k, text] of Object.entries(m.sql)) q[k] = db.prepare(text);
      postMessage({ ready: true });
    } else if (m.look) {
      const covered = index();
      postMessage({ id: m.look, covered, merged: merge() });
    } else if (m.stop) {
      db?.close();
      postMessage({ stopped: true });
    }
  } catch (err) {
    postMessage({ id: m.look, error: String(err), failed: Boolean(m.open) });
  }
};`;

/**
 * The search index's follower work on a worker thread (text-index.ts decides when): adding the
 * new messages to the index and merging its segments is SQLite CPU that used to run on the event
 * loop, 5–10 % of a send's time under a send load, in pieces of a few ms that every request in
 * flight waited behind. Here it runs on the other core, and the main thread meets it only at the
 * write lock, which it waits for without blocking (src/db/thread-lock.ts): a transaction waits
 * at most one piece of the worker's (a chunk of CHUNK messages, since the worker commits early
 * when the main thread waits), the rest of the server does not wait at all.
 * The worker's code is a string (source-worker.ts), as the checkpointer's. Null where no other connection can open the database (in memory, PostgreSQL).
 */
export function startTextIndexWorker(db: DB): TextIndexWorker | null {
  const shared = threadWriteLock(db);
  return shared ? new TextIndexWorker(shared.path, shared.lock) : null;
}

export class TextIndexWorker {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private readonly waiting = new Map<number, { resolve(r: { covered: number; merged: number }): void; reject(e: Error): void }>();
  private next = 0;
  private stopped: (() => void) | undefined;
  private failed: Error | undefined;

  constructor(path: string, private readonly lock: ThreadWriteLock) {
    lock.askStop(WORKER_ID.searchIndex, false);
    this.worker = sourceWorker(WORKER);
    let opened!: () => void;
    let refused!: (e: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => ((opened = resolve), (refused = reject)));
    this.ready.catch(() => {});
    this.worker.onmessage = (e: MessageEvent) => {
      const m = e.data as { ready?: true; stopped?: true; id?: number; covered?: number; merged?: number; error?: string; failed?: boolean };
      if (m.ready) opened();
      else if (m.stopped) this.stopped?.();
      else if (m.failed) refused((this.failed = new Error(m.error)));
      else if (m.id) {
        const w = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (m.error) w?.reject(new Error(m.error));
        else w?.resolve({ covered: m.covered!, merged: m.merged! });
      }
    };
    this.worker.onerror = (e) => this.fail(new Error(`search index worker: ${e.message}`), refused);
    this.worker.postMessage({ open: path, lock: lock.buffer, batch: TEXT_INDEX_BATCH, chunk: CHUNK, mergePages: TEXT_INDEX_MERGE_PAGES, sql: TEXT_INDEX_SQL });
  }

  /** Whether the worker failed (it cannot open the file, or it crashed): the follower works on the main thread then. */
  get broken(): boolean {
    return this.failed !== undefined;
  }

  /** Adds every message not yet indexed, then merges what is left to merge; what it covered and the merge steps. */
  async look(): Promise<{ covered: number; merged: number }> {
    await this.ready;
    if (this.failed) throw this.failed;
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ look: id });
    });
  }

  /** Stops after the piece in progress and closes the worker's connection. */
  async stop(): Promise<void> {
    this.lock.askStop(WORKER_ID.searchIndex);
    const done = new Promise<void>((resolve) => (this.stopped = resolve));
    this.worker.postMessage({ stop: true });
    // a look in progress ends at its next piece, then the stop is read; a worker that never
    // answers is terminated, and the thread lock it may hold is freed
    await Promise.race([done, Bun.sleep(5_000)]);
    this.worker.terminate();
    this.lock.forget(WORKER_ID.searchIndex);
    this.fail(new Error("the search index worker is stopped"));
  }

  private fail(err: Error, refused?: (e: Error) => void): void {
    this.failed ??= err;
    refused?.(err);
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
