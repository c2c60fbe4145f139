import type { DB } from "../../db/store.ts";
import { blockSize } from "../../limits/leases.ts";
import { incrementCounter, readCounter, usagePeriod } from "../billing/usage.ts";
import type { ApiQuota } from "./daily-quota.ts";

interface Block {
  /** the row's `used` as last seen by this node (every node's units taken) */
  used: number;
  /** units taken by this node and not spent yet */
  left: number;
  /** a block being taken: the workspace's other requests wait for it */
  pending?: Promise<unknown>;
}

/**
 * The daily API-request quota on PostgreSQL, where the nodes of a cluster answer API-key
 * requests side by side. Units come from the workspace's `usage_counters` row with one
 * statement that adds them only while the row stays within the limit, so the count is exact
 * across nodes. Far from the limit a node takes a block of units in one statement and spends
 * it in memory (the rate limit's rule, src/limits/leases.ts: an eighth of what is left above the
 * last quarter, at most 1,000); in the last quarter each request takes its own unit, so the
 * race at the last unit is exact. `pendingOf` is minus this node's unspent units (the row
 * counts them already); units left at the day's end, or when the node stops, are dropped.
 */
export class SharedDailyApiQuota implements ApiQuota {
  private blocks = new Map<string, Block>();

  constructor(private db: DB) {}

  /** At once (no promise) while this node's block has a unit left: the common case far from the limit. */
  take(workspaceId: string, at: Date, limit: number): number | null | Promise<number | null> {
    const key = `${workspaceId}|${usagePeriod("apiRequestsPerDay", at)}`;
    const b = this.blocks.get(key);
    // units taken under a higher limit are not spent past a lowered one
    if (b && b.left > 0 && b.used <= limit) {
      b.left--;
      return b.used - b.left;
    }
    return this.takeWaiting(key, workspaceId, at, limit);
  }

  /** take when no unit is left at hand: waits for a block being taken, else asks the row. */
  private async takeWaiting(key: string, workspaceId: string, at: Date, limit: number): Promise<number | null> {
    let waited: Promise<unknown> | undefined;
    for (;;) {
      const b = this.blocks.get(key);
      // units taken under a higher limit are not spent past a lowered one
      if (b && b.left > 0 && b.used <= limit) {
        b.left--;
        return b.used - b.left;
      }
      if (!b?.pending || b.pending === waited) break;
      await (waited = b.pending);
    }
    const want = blockSize(limit, this.blocks.get(key)?.used ?? 0);
    const asked = this.ask(key, workspaceId, at, limit, want);
    if (want > 1) {
      const b = this.block(key);
      const settled = asked.then(
        () => {},
        () => {},
      );
      b.pending = settled;
      void settled.then(() => {
        if (b.pending === settled) b.pending = undefined;
      });
    }
    return asked;
  }

  private async ask(key: string, workspaceId: string, at: Date, limit: number, want: number): Promise<number | null> {
    for (;;) {
      const used = await incrementCounter(this.db, workspaceId, "apiRequestsPerDay", at, limit, want);
      const b = this.block(key);
      if (used !== null) {
        b.used = Math.max(b.used, used);
        b.left += want - 1;
        return used - b.left;
      }
      const stored = await readCounter(this.db, workspaceId, "apiRequestsPerDay", at);
      b.used = stored;
      if (want > 1 && stored < limit) {
        want = blockSize(limit, stored);
        continue;
      }
      return null;
    }
  }

  private block(key: string): Block {
    let b = this.blocks.get(key);
    if (!b) {
      if (this.blocks.size >= 50_000) for (const [k, v] of this.blocks) if (v.left <= 0 && !v.pending) this.blocks.delete(k);
      this.blocks.set(key, (b = { used: 0, left: 0 }));
    }
    return b;
  }

  pendingOf(workspaceId: string, at: Date): number {
    return -(this.blocks.get(`${workspaceId}|${usagePeriod("apiRequestsPerDay", at)}`)?.left ?? 0);
  }

  async flush(): Promise<void> {}
}
