import type { DB } from "../../db/store.ts";
import { blockSize, Leases } from "../../limits/leases.ts";
import { incrementCounter, readCounter, returnToCounter, usagePeriod } from "../billing/usage.ts";
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
 * units (the row counts them already). Unspent units go back to the row when a request finds no
 * room (a limit lowered below the row's count, which counts them) and when the node stops (the
 * final flush), so a node's blocks never refuse its own requests before the limit; units left at
 * the day's end, or when a node is killed, are dropped.
 */
export class SharedDailyApiQuota implements ApiQuota {
  private leases = new Leases(Infinity);
  /** Per key, the give-backs done and the one under way: a request refused meanwhile asks again. */
  private returns = new Map<string, { done: number; giving?: Promise<void> }>();

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
      const returnsBefore = this.returns.get(key)?.done ?? 0;
      const used = await incrementCounter(this.db, workspaceId, "apiRequestsPerDay", at, limit, want);
      if (used !== null) {
        this.leases.granted(key, START, used, want);
        return used - this.leases.left(key);
      }
      // the row counted this node's unspent units: once they are back, ask again
      if (await this.unitsCameBack(key, returnsBefore)) {
        want = blockSize(limit, this.leases.known(key, START) ?? 0);
        continue;
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

  /** Nothing waits in memory; the final flush (the node stopping) gives every unspent unit back. */
  async flush(final = false): Promise<void> {
    if (!final) return;
    for (const key of this.leases.held()) await this.giveBack(key);
  }

  /**
   * Whether this node's unspent units of `key` went back to the row since `before` (a count of
   * give-backs): given back now, being given back by another request (waited for), or given
   * back meanwhile.
   */
  private async unitsCameBack(key: string, before: number): Promise<boolean> {
    if (await this.giveBack(key)) return true;
    const r = this.returns.get(key);
    if (r?.giving) {
      await r.giving;
      return true;
    }
    return (r?.done ?? 0) !== before;
  }

  /** Gives this node's unspent units of `key` back to the row; whether there were any. */
  private async giveBack(key: string): Promise<boolean> {
    const units = this.leases.takeBack(key);
    if (units === 0) return false;
    const [workspaceId, period] = key.split("|") as [string, string];
    const r = this.returns.get(key) ?? { done: 0 };
    this.returns.set(key, r);
    const giving = returnToCounter(this.db, workspaceId, "apiRequestsPerDay", period, units).then((count) => {
      if (count !== null) this.leases.returned(key, count);
    });
    r.giving = giving.finally(() => {
      r.done++;
      r.giving = undefined;
    });
    await r.giving;
    return true;
  }
}
