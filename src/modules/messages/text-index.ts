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

  constructor(
    private readonly db: DB,
    private readonly log: Logger,
  ) {}

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
    try {
      covered = this.inline ? await this.onEventLoop() : await this.onWorker();
    } catch (err) {
      this.log.error("search index not caught up; the next look or search will", { err });
    }
    if (this.stopped) return;
    this.wait = covered ? FOLLOW_MS : Math.min(this.wait * 2, QUIET_MS);
    this.schedule(this.wait);
  }

  private async onWorker(): Promise<number> {
    const { mark, last } = await textIndexLag(this.db);
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
