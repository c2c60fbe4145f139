import type { DB } from "../../db/store.ts";
import { blockSize, Leases } from "../../limits/leases.ts";
import { incrementCounter, readCounter, usagePeriod } from "../billing/usage.ts";
import type { ApiQuota } from "./daily-quota.ts";

/** A day's lease has no window of its own: its key names the day (see `key`). */
const START = 0;

/**
 * The daily API-request quota on PostgreSQL, where the nodes of a cluster answer API-key
 * requests side by side. Units come from the workspace's `usage_counters` row with one
 * statement that adds them only while the row stays within the limit, so the count is exact
 * across nodes. Far from the limit a node takes a block of units in one statement and spends
 * it in memory, with the rate limit's rule and bookkeeping (src/limits/leases.ts: an eighth of
 * what is left above the last quarter, at most 1,000); in the last quarter each request takes
 * its own unit, so the race at the last unit is exact. `pendingOf` is minus this node's unspent
 * units (the row counts them already); units left at the day's end, or when the node stops, are
 * dropped.
 */
export class SharedDailyApiQuota implements ApiQuota {
  private leases = new Leases(Infinity);

  constructor(private db: DB) {}

  /** At once (no promise) while this node's block has a unit left: the common case far from the limit. */
  take(workspaceId: string, at: Date, limit: number): number | null | Promise<number | null> {
    const key = this.key(workspaceId, at);
    const spent = this.leases.spend(key, START, limit);
    return spent ? spent.count - spent.left : this.takeWaiting(key, workspaceId, at, limit);
  }

  /** take when no unit is left at hand: waits for a block being taken, else asks the row. */
  private async takeWaiting(key: string, workspaceId: string, at: Date, limit: number): Promise<number | null> {
    let waited: Promise<unknown> | undefined;
    for (;;) {
      const spent = this.leases.spend(key, START, limit);
      if (spent) return spent.count - spent.left;
      const pending = this.leases.pending(key);
      if (!pending || pending === waited) break;
      await (waited = pending);
    }
    const want = blockSize(limit, this.leases.known(key, START) ?? 0);
    const asked = this.ask(key, workspaceId, at, limit, want);
    if (want > 1) this.leases.wait(key, asked);
    return asked;
  }

  private async ask(key: string, workspaceId: string, at: Date, limit: number, want: number): Promise<number | null> {
    for (;;) {
      const used = await incrementCounter(this.db, workspaceId, "apiRequestsPerDay", at, limit, want);
      if (used !== null) {
        this.leases.granted(key, START, used, want);
        return used - this.leases.left(key);
      }
      const stored = await readCounter(this.db, workspaceId, "apiRequestsPerDay", at);
      this.leases.full(key, START, stored);
      if (want > 1 && stored < limit) {
        want = blockSize(limit, stored);
        continue;
      }
      return null;
    }
  }

  private key(workspaceId: string, at: Date): string {
    return `${workspaceId}|${usagePeriod("apiRequestsPerDay", at)}`;
  }

  pendingOf(workspaceId: string, at: Date): number {
    return -this.leases.left(this.key(workspaceId, at));
  }

  async flush(): Promise<void> {}
}
