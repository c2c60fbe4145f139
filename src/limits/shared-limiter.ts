import type { Clock } from "../clock.ts";
import type { DB, Statement } from "../db/store.ts";
import { errors } from "../errors.ts";
import type { RateDecision } from "../rate-limiter.ts";

interface WindowRow {
  start: number;
  count: number;
}

/**
 * RateLimiter's fixed windows kept in the `rate_windows` table, for the nodes of a PostgreSQL
 * cluster: whichever node answers a request counts it in the same row. A hit is one statement
 * (an upsert that counts only while the window has room, or starts a new window once the old
 * one is over), so parallel requests on any number of nodes cannot both take the last unit.
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

  constructor(
    db: DB,
    private clock: Clock,
    private name: string,
    readonly limit: number,
    private windowMs = 60_000,
  ) {
    // ?1 key, ?2 now, ?3 window length, ?4 limit; `over` = the stored window has ended (or the clock went back past it)
    const over = "(?2::bigint - rate_windows.start >= ?3::bigint OR ?2::bigint < rate_windows.start - ?3::bigint)";
    const upsert = `INSERT INTO rate_windows (key, start, count) VALUES (?1, ?2::bigint, 1)
       ON CONFLICT (key) DO UPDATE SET
         start = CASE WHEN ${over} THEN ?2::bigint ELSE rate_windows.start END,
         count = CASE WHEN ${over} THEN 1 ELSE rate_windows.count + 1 END`;
    this.hitStmt = db.prepare(`${upsert} WHERE ${over} OR rate_windows.count < ?4::bigint RETURNING start, count`);
    this.addStmt = db.prepare(`${upsert} WHERE ?4::bigint >= 0 RETURNING start, count`);
    this.readStmt = db.prepare("SELECT start, count FROM rate_windows WHERE key = ?");
    this.clearStmt = db.prepare("DELETE FROM rate_windows WHERE key = ?");
  }

  async hit(key: string): Promise<RateDecision> {
    const now = this.clock.nowMs();
    if (this.limit <= 0) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil(this.windowMs / 1000)) };
    const row = await this.hitStmt.get(this.k(key), now, this.windowMs, this.limit);
    if (row) return { allowed: true, limit: this.limit, remaining: Math.max(0, this.limit - row.count), resetSeconds: this.resetSeconds(row.start, now) };
    const current = await this.readStmt.get(this.k(key));
    return { allowed: false, limit: this.limit, remaining: 0, resetSeconds: this.resetSeconds(current?.start ?? now, now) };
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
    await this.addStmt.get(this.k(key), this.clock.nowMs(), this.windowMs, this.limit);
  }

  async clear(key: string): Promise<void> {
    await this.clearStmt.run(this.k(key));
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
