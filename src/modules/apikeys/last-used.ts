import type { DB } from "../../db/store.ts";

/**
 * `lastUsedAt` of API keys, kept in memory on each use and written in one batch by a periodic
 * job and at shutdown: a key used 600 times a minute costs one UPDATE a flush, not 600.
 */
export class LastUsedTracker {
  private pending = new Map<string, number>();

  constructor(private db: DB) {}

  /** Records a use of a key (no database write). */
  touch(apiKeyId: string, at: number): void {
    const prev = this.pending.get(apiKeyId);
    if (prev === undefined || at > prev) this.pending.set(apiKeyId, at);
  }

  /** The unflushed time of a key, if any (lists merge it so they are never stale). */
  peek(apiKeyId: string): number | undefined {
    return this.pending.get(apiKeyId);
  }

  /**
   * Writes pending times in one transaction; never moves a time backwards. Returns keys written.
   * Uses made while it writes wait for the next flush.
   */
  async flush(): Promise<number> {
    if (!this.pending.size) return 0;
    const batch = [...this.pending];
    this.pending.clear();
    // a plain comparison, not SQLite's scalar max(): the same statement on both engines
    const update = this.db.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)");
    try {
      await this.db.tx(async () => {
        for (const [id, at] of batch) await update.run(at, id, at);
      });
    } catch (err) {
      // keep the times for the next flush rather than lose them
      for (const [id, at] of batch) this.touch(id, at);
      throw err;
    }
    return batch.length;
  }
}
