/** A node takes at most this share of the budget left above the exact zone in one block. */
export const BLOCK_SHARE = 8;
/** The last part of a window's limit (a quarter) is taken one unit per request, with a statement each. */
export const EXACT_ZONE = 4;
/** No block is larger than this (a node killed holding one loses it for the window). */
export const MAX_BLOCK = 1_000;

/**
 * How many units a node takes from a window in one statement when the window's count was
 * `count`: an eighth of what is left above the last quarter of the limit (at most MAX_BLOCK),
 * and 1 (the exact per-request statement) once that is less than two.
 */
export function blockSize(limit: number, count: number): number {
  const above = limit - Math.ceil(limit / EXACT_ZONE) - count;
  const block = Math.min(MAX_BLOCK, Math.floor(above / BLOCK_SHARE));
  return block >= 2 ? block : 1;
}

export interface Lease {
  /** the window's start, as the row says */
  start: number;
  /** the row's count as last seen by this node (the units every node took) */
  count: number;
  /** units of this node's blocks not spent yet */
  left: number;
  /** a block being taken: requests of the key wait for it instead of asking too */
  pending?: Promise<unknown>;
}

/**
 * The blocks of shared counters this node holds, per key, in memory: the rate limit's windows
 * and the daily API quota's days. A lease lives as long as its window: once the window is over
 * (or the clock went back past it) its units are dropped and the next request asks the database
 * again. A counter whose key names its own period (a day) uses an endless window.
 */
export class Leases {
  private byKey = new Map<string, Lease>();

  constructor(private windowMs: number) {}

  /**
   * Spends one unit of a live lease of `key`: the lease after it (`count - left` units are
   * used, `limit - count + left` remain), or undefined when it has none left, or when its row
   * counts more than `limit` (units taken under a higher limit are not spent past a lowered one).
   */
  spend(key: string, now: number, limit = Infinity): Readonly<Lease> | undefined {
    const l = this.live(key, now);
    if (!l || l.left <= 0 || l.count > limit) return undefined;
    l.left--;
    return l;
  }

  /** The block being taken for `key`, if any. */
  pending(key: string): Promise<unknown> | undefined {
    return this.byKey.get(key)?.pending;
  }

  /** The row's count as last seen for a live window of `key`, if known. */
  known(key: string, now: number): number | undefined {
    return this.live(key, now)?.count;
  }

  /** Marks a block of `key` being taken (its statement). */
  wait(key: string, p: Promise<unknown>): void {
    const l = this.byKey.get(key) ?? { start: 0, count: 0, left: 0 };
    const settled = p.then(
      () => {},
      () => {},
    );
    l.pending = settled;
    this.byKey.set(key, l);
    void settled.then(() => {
      const now = this.byKey.get(key); // `granted` may have replaced the lease meanwhile
      if (now?.pending === settled) now.pending = undefined;
    });
  }

  /** The row granted `units` (one of them spent by the request that asked) and now counts `count`. */
  granted(key: string, start: number, count: number, units: number): void {
    const l = this.byKey.get(key);
    if (l && l.start === start) {
      l.count = Math.max(l.count, count);
      l.left += units - 1;
    } else this.byKey.set(key, { start, count, left: units - 1, pending: l?.pending });
    if (this.byKey.size > 50_000) this.prune();
  }

  /** The row had no room for the units asked: it counts `count` (the limit, for a full window). */
  full(key: string, start: number, count: number): void {
    const l = this.byKey.get(key);
    if (l && l.start === start) l.count = count;
    else this.byKey.set(key, { start, count, left: 0, pending: l?.pending });
  }

  /** Units of `key` this node holds. */
  left(key: string): number {
    return this.byKey.get(key)?.left ?? 0;
  }

  /** Takes every unit of `key` this node holds out of its lease, to be given back to the row: how many. */
  takeBack(key: string): number {
    const l = this.byKey.get(key);
    const n = l?.left ?? 0;
    if (l) l.left = 0;
    return n;
  }

  /** The row counts `count` after units were given back to it. */
  returned(key: string, count: number): void {
    const l = this.byKey.get(key);
    if (l) l.count = count;
  }

  /** The keys this node holds units of. */
  held(): string[] {
    return [...this.byKey].filter(([, l]) => l.left > 0).map(([k]) => k);
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }

  private live(key: string, now: number): Lease | undefined {
    const l = this.byKey.get(key);
    if (!l) return undefined;
    if (now - l.start >= this.windowMs || now < l.start - this.windowMs) {
      l.left = 0;
      l.count = 0;
      l.start = now;
      return l.pending ? undefined : (this.byKey.delete(key), undefined);
    }
    return l;
  }

  /** Drops the leases of windows that no longer hold units (many keys seen once). */
  private prune(): void {
    for (const [k, l] of this.byKey) if (l.left <= 0 && !l.pending) this.byKey.delete(k);
  }
}
