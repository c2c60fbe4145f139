import type { Clock } from "../clock.ts";
import type { DB, Statement } from "../db/store.ts";
import { errors } from "../errors.ts";
import type { RateDecision } from "../rate-limiter.ts";
import { blockSize, Leases } from "./leases.ts";

interface WindowRow {
  start: number;
  count: number;
}

/**
 * RateLimiter's fixed windows kept in the `rate_windows` table, for the nodes of a PostgreSQL
 * cluster: whichever node answers a request counts it in the same row. A grant is one statement
 * (an upsert that counts only while the window has room for the whole grant, or starts a new
 * window once the old one is over), so parallel requests on any number of nodes cannot take
 * more than the limit between them.
 *
 * Far from the limit a node does not pay that statement for every request: it takes a block of
 * the window's budget (at most an eighth of what is left above the last quarter of the limit,
 * see leases.ts) and spends it in memory; in the last quarter every request takes its own unit
 * with the statement, as before. A block not spent is dropped when its window ends. The count in
 * the row is what the nodes took, so no node can let in more than the limit; a node holding a
 * block it does not use can only make the others refuse a little early.
 *
 * The semantics are RateLimiter's: a window starts at a key's first request and lasts
 * `windowMs`; a clock set back by more than a window before its start starts a new one. Only
 * then: the nodes' requests carry their own `now`, read before their statement reaches the
 * database, so a request a few milliseconds "before" a window another node just opened belongs to
 * that window (treating it as a clock set back reset the count, and let more than the limit in).
 */
export class SharedRateLimiter {
  private hitStmt: Statement<WindowRow>;
  private addStmt: Statement<WindowRow>;
  private readStmt: Statement<WindowRow>;
  private clearStmt: Statement;
  private leases: Leases;

  constructor(
    db: DB,
    private clock: Clock,
    private name: string,
    readonly limit: number,
    private windowMs = 60_000,
  ) {
    // ?1 key, ?2 now, ?3 window length, ?4 limit, ?5 units taken; `over` = the stored window has ended (or the clock went back past it)
    const over = "(?2::bigint - rate_windows.start >= ?3::bigint OR ?2::bigint < rate_windows.start - ?3::bigint)";
    const upsert = `INSERT INTO rate_windows (key, start, count) VALUES (?1, ?2::bigint, ?5::bigint)
       ON CONFLICT (key) DO UPDATE SET
         start = CASE WHEN ${over} THEN ?2::bigint ELSE rate_windows.start END,
         count = CASE WHEN ${over} THEN ?5::bigint ELSE rate_windows.count + ?5::bigint END`;
    this.hitStmt = db.prepare(`${upsert} WHERE ${over} OR rate_windows.count + ?5::bigint <= ?4::bigint RETURNING start, count`);
    this.addStmt = db.prepare(`${upsert} WHERE ?4::bigint >= 0 RETURNING start, count`);
    this.readStmt = db.prepare("SELECT start, count FROM rate_windows WHERE key = ?");
    this.clearStmt = db.prepare("DELETE FROM rate_windows WHERE key = ?");
    this.leases = new Leases(windowMs);
  }

  async hit(key: string): Promise<RateDecision> {
    if (this.limit <= 0) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil(this.windowMs / 1000)) };
    const k = this.k(key);
    let waited: Promise<unknown> | undefined;
    for (;;) {
      const now = this.clock.nowMs();
      const spent = this.leases.spend(k, now);
      if (spent) return this.allowed(spent.start, this.limit - spent.count + spent.left, now);
      const pending = this.leases.pending(k);
      if (!pending || pending === waited) return this.grant(k, now);
      await (waited = pending); // a block is being taken for this key: spend from it, or ask once it answered
    }
  }

  /**
   * Takes units from the row: a block when the count this node last saw leaves room for one
   * (the key's other requests on this node wait for it), else one unit. A block the row no
   * longer has room for is asked again at the size the row's count allows, down to one unit.
   */
  private grant(k: string, now: number): Promise<RateDecision> {
    const want = blockSize(this.limit, this.leases.known(k, now) ?? 0);
    const granted = this.ask(k, now, want);
    if (want > 1) this.leases.wait(k, granted);
    return granted;
  }

  private async ask(k: string, now: number, want: number): Promise<RateDecision> {
    for (;;) {
      const row = await this.hitStmt.get(k, now, this.windowMs, this.limit, want);
      if (row) {
        this.leases.granted(k, row.start, row.count, want);
        return this.allowed(row.start, this.limit - row.count + this.leases.left(k), now);
      }
      const current = await this.readStmt.get(k);
      if (want > 1 && (!current || current.count < this.limit)) {
        want = blockSize(this.limit, current?.count ?? 0);
        continue;
      }
      this.leases.full(k, current?.start ?? now, this.limit);
      return { allowed: false, limit: this.limit, remaining: 0, resetSeconds: this.resetSeconds(current?.start ?? now, now) };
    }
  }

  async take(key: string, message = "Too many requests; retry later"): Promise<void> {
    const d = await this.hit(key);
    if (!d.allowed) throw errors.rateLimited(d.resetSeconds, message);
  }

  async check(key: string, message = "Too many attempts; retry later"): Promise<void> {
    const now = this.clock.nowMs();
    const w = await this.readStmt.get(this.k(key));
    if (!w || now - w.start >= this.windowMs || now < w.start - this.windowMs) return;
    if (w.count >= this.limit) throw errors.rateLimited(this.resetSeconds(w.start, now), message);
  }

  async add(key: string): Promise<void> {
    await this.addStmt.get(this.k(key), this.clock.nowMs(), this.windowMs, this.limit, 1);
  }

  async clear(key: string): Promise<void> {
    this.leases.forget(this.k(key));
    await this.clearStmt.run(this.k(key));
  }

  private allowed(start: number, remaining: number, now: number): RateDecision {
    return { allowed: true, limit: this.limit, remaining: Math.max(0, remaining), resetSeconds: this.resetSeconds(start, now) };
  }

  private k(key: string): string {
    return `${this.name}:${key}`;
  }

  private resetSeconds(start: number, now: number): number {
    return Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
  }
}

/** Deletes the windows that started before `before` (ended for every limiter): housekeeping, an ended row restarts anyway. */
export async function pruneRateWindows(db: DB, before: number): Promise<number> {
  return (await db.prepare("DELETE FROM rate_windows WHERE start < ?").run(before)).changes;
}
