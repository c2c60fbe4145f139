import type { DB } from "../../db/store.ts";
import type { Logger } from "../../log.ts";
import { textIndexCaughtUp, textIndexLag, textIndexMerged } from "./fts-repo.ts";
import { startTextIndexWorker, type TextIndexWorker } from "./text-index-worker.ts";

/** How soon the follower looks again after it found messages to index (ms). */
const FOLLOW_MS = 200;
/** The longest it waits between two looks that found nothing (ms): each quiet look doubles the wait up to this. */
const QUIET_MS = 2_000;
/** A worker thread with nothing to index for this long is stopped (its VM and connection are several MiB). */
const WORKER_IDLE_MS = 30_000;
/** Messages written a second, between two looks, from which the follower leaves the index to wait (see DEFER_MS). */
const BUSY_PER_S = 1_000;
/** The longest the follower leaves new messages unindexed while they come faster than BUSY_PER_S. */
const DEFER_MS = 10_000;

export interface TextIndexFollowerOptions {
  /** how long indexing waits while messages come faster than `busyPerS` (ms; 0: it never waits) */
  deferMs?: number;
  /** the rate of new messages (per second) from which indexing waits */
  busyPerS?: number;
}

/**
 * Keeps the message search index (SQLite) close behind the messages table: every FOLLOW_MS while
 * messages come, the new ones are added in batches (fts-repo.ts) and the index's segments merged
 * in small steps (FTS5's own merging would stall whatever commit it lands in). A search does not
 * depend on it (it catches the index up first); the follower keeps that catching up small.
 * The work runs on a worker thread with a connection of its own (text-index-worker.ts), started
 * when messages first wait to be indexed and stopped after WORKER_IDLE_MS without any; where no
 * worker can open the database (in memory) or one fails, on the event loop, a turn of it between
 * two batches. The look itself, on the main thread, is two reads. Built and stopped with the
 * messaging services.
 * Indexing is background work, and it yields to a burst of writes: while messages come faster
 * than BUSY_PER_S, the follower leaves them to wait, up to DEFER_MS, and indexes them once the
 * burst is over (or that long after it began, and again every DEFER_MS of a load that lasts).
 * The worker's pieces meet every send group of a burst at the write lock and compete with it
 * for the machine's cores; deferred, the same work runs when the server has room. Nothing is
 * lost or found late: a search catches the index up first, so at worst it does the waiting
 * work itself, on the event loop, in batches that give the loop a turn.
 */
export class TextIndexFollower {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private wait = FOLLOW_MS;
  private stopped = false;
  private running: Promise<void> | undefined;
  private worker: TextIndexWorker | null = null;
  /** no worker thread for this database (in memory, or one failed): the event loop does the work */
  private inline = false;
  private quietSince = 0;
  /** the last message's rowid at the previous look, and when that was (ms), for the rate of new messages */
  private seen: { last: number; at: number } | undefined;
  /** since when indexing waits for a burst of writes to end (ms), if it does */
  private busySince: number | undefined;
  private readonly deferMs: number;
  private readonly busyPerS: number;

  constructor(
    private readonly db: DB,
    private readonly log: Logger,
    o: TextIndexFollowerOptions = {},
  ) {
    this.deferMs = o.deferMs ?? DEFER_MS;
    this.busyPerS = o.busyPerS ?? BUSY_PER_S;
  }

  /** Whether indexing waits now: messages came faster than `busyPerS` since the last look, for less than `deferMs`. */
  get deferring(): boolean {
    return this.busySince !== undefined;
  }

  /** Where the work runs: on a worker thread, or on the event loop (no worker can open the database, or one failed). */
  get mode(): "worker" | "event loop" {
    return this.inline ? "event loop" : "worker";
  }

  start(): void {
    if (this.db.engine !== "sqlite" || this.stopped) return;
    this.schedule(0);
  }

  /** Stops looking; resolves once a batch in progress is committed and the worker thread is gone. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.worker?.stop();
    await this.running;
    this.worker = null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.running = this.look().finally(() => (this.running = undefined));
    }, ms);
    this.timer.unref?.();
  }

  private async look(): Promise<void> {
    let covered = 0;
    let waits = false;
    try {
      const lag = await textIndexLag(this.db);
      const now = performance.now();
      waits = this.defer(lag.last, now);
      if (waits) this.quietSince = now; // messages wait: not idle
      else covered = this.inline ? await this.onEventLoop() : await this.onWorker(lag);
    } catch (err) {
      this.log.error("search index not caught up; the next look or search will", { err });
    }
    if (this.stopped) return;
    this.wait = covered || waits ? FOLLOW_MS : Math.min(this.wait * 2, QUIET_MS);
    this.schedule(this.wait);
  }

  /**
   * Whether this look leaves the new messages to wait: they came faster than `busyPerS` since the
   * last look, and have not waited `deferMs` yet. Once they have, they are indexed and a load that
   * goes on waits again from the next look.
   */
  private defer(last: number, now: number): boolean {
    const seen = this.seen;
    this.seen = { last, at: now };
    if (!seen || this.deferMs <= 0) return false;
    const perS = ((last - seen.last) * 1000) / Math.max(1, now - seen.at);
    if (perS >= this.busyPerS) {
      this.busySince ??= now;
      if (now - this.busySince < this.deferMs) return true;
    }
    this.busySince = undefined;
    return false;
  }

  private async onWorker({ mark, last }: { mark: number; last: number }): Promise<number> {
    const now = performance.now();
    if (last <= mark) {
      if (this.worker && now - this.quietSince >= WORKER_IDLE_MS) {
        const idle = this.worker;
        this.worker = null;
        await idle.stop();
      }
      return 0;
    }
    this.quietSince = now;
    // stopped while it read: no thread is started that stop() would not see
    if (this.stopped) return 0;
    this.worker ??= startTextIndexWorker(this.db);
    if (!this.worker) {
      this.inline = true;
      return this.onEventLoop();
    }
    try {
      return (await this.worker.look()).covered;
    } catch (err) {
      if (this.stopped) return 0;
      if (this.worker.broken) {
        this.log.warn("search index worker failed; the follower works on the event loop", { err });
        const broken = this.worker;
        this.inline = true;
        this.worker = null;
        // its thread may still run (a connection that failed to open): ended, its lock freed
        await broken.stop();
        return this.onEventLoop();
      }
      throw err;
    }
  }

  private async onEventLoop(): Promise<number> {
    const covered = await textIndexCaughtUp(this.db, () => this.stopped);
    try {
      await textIndexMerged(this.db, () => this.stopped);
    } catch (err) {
      this.log.error("search index segments not merged; the next look will", { err });
    }
    return covered;
  }
}
