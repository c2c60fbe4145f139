import type { DB } from "../../db/store.ts";
import type { Logger } from "../../log.ts";
import { textIndexCaughtUp, textIndexMerged } from "./fts-repo.ts";

/** How soon the follower looks again after it found messages to index (ms). */
const FOLLOW_MS = 200;
/** The longest it waits between two looks that found nothing (ms): each quiet look doubles the wait up to this. */
const QUIET_MS = 2_000;

/**
 * Keeps the message search index (SQLite) close behind the messages table: every FOLLOW_MS while
 * messages come, it adds the new ones in batches (fts-repo.ts), giving the event loop a turn
 * between two batches. A search does not depend on it (it catches the index up first); the
 * follower keeps that catching up small. It also merges the index's segments, in small steps
 * (fts-repo.ts: FTS5's own merging would stall the event loop). Built and stopped with the
 * messaging services.
 */
export class TextIndexFollower {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private wait = FOLLOW_MS;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: DB,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.db.engine !== "sqlite" || this.stopped) return;
    this.schedule(0);
  }

  /** Stops looking; resolves once a batch in progress is committed. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
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
      covered = await textIndexCaughtUp(this.db, () => this.stopped);
    } catch (err) {
      this.log.error("search index not caught up; the next look or search will", { err });
    }
    try {
      await textIndexMerged(this.db, () => this.stopped);
    } catch (err) {
      this.log.error("search index segments not merged; the next look will", { err });
    }
    if (this.stopped) return;
    this.wait = covered ? FOLLOW_MS : Math.min(this.wait * 2, QUIET_MS);
    this.schedule(this.wait);
  }
}
