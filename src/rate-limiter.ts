import type { Clock } from "./clock.ts";
import { errors } from "./errors.ts";

/** What one counted request learns: whether it is within the limit, and the window's state. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** seconds until the window resets (at least 1) */
  resetSeconds: number;
}

interface Window {
  start: number;
  count: number;
}

/** past this many keys, the expired windows are swept before a new key is added */
const SWEEP_AT = 10_000;
/** a flood of distinct keys: past this many live ones, the oldest half is forgotten */
const MAX_KEYS = 100_000;

/**
 * Fixed windows per key, kept in memory: the request rate per member and per API key, the
 * auth routes per IP, failed logins per account. They reset on restart, which only forgives
 * a few requests; the limits that must survive one (the daily API quota, the OTP send caps)
 * live in rows. A window starts at a key's first request and lasts `windowMs`; a clock set
 * back before a window's start starts a new one. One process only (SQLite): the nodes of a
 * PostgreSQL cluster count in the database instead (limits/shared-limiter.ts, chosen by
 * limits/limiter.ts).
 */
export class RateLimiter {
  private windows = new Map<string, Window>();
  private sweepAt = SWEEP_AT;

  constructor(
    private clock: Clock,
    readonly limit: number,
    private windowMs = 60_000,
  ) {}

  /** Counts one request of `key` if it is within the limit, and says whether it was. */
  hit(key: string): RateDecision {
    const now = this.clock.nowMs();
    const w = this.current(key, now, true)!;
    const resetSeconds = this.resetSeconds(w, now);
    if (w.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    w.count++;
    return { allowed: true, limit: this.limit, remaining: this.limit - w.count, resetSeconds };
  }

  /** `hit`, refused with 429 RATE_LIMITED and Retry-After once over the limit. */
  take(key: string, message = "Too many requests; retry later"): void {
    const d = this.hit(key);
    if (!d.allowed) throw errors.rateLimited(d.resetSeconds, message);
  }

  /** Throws 429 when the key already used up its window (without counting). */
  check(key: string, message = "Too many attempts; retry later"): void {
    const now = this.clock.nowMs();
    const w = this.current(key, now, false);
    if (w && w.count >= this.limit) throw errors.rateLimited(this.resetSeconds(w, now), message);
  }

  /** Counts one event (a failed login) without refusing. */
  add(key: string): void {
    this.current(key, this.clock.nowMs(), true)!.count++;
  }

  /** Forgets a key (a successful login clears its failures). */
  clear(key: string): void {
    this.windows.delete(key);
  }

  private resetSeconds(w: Window, now: number): number {
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  /** The key's window in force at `now`: a spent one is dropped, and a new one made if `create`. */
  private current(key: string, now: number, create: boolean): Window | undefined {
    let w = this.windows.get(key);
    if (w && (now - w.start >= this.windowMs || now < w.start)) {
      this.windows.delete(key);
      w = undefined;
    }
    if (!w && create) {
      if (this.windows.size >= this.sweepAt) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    return w;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs || now < w.start) this.windows.delete(k);
    if (this.windows.size >= MAX_KEYS) {
      let n = this.windows.size / 2;
      for (const k of this.windows.keys()) {
        if (n-- <= 0) break;
        this.windows.delete(k);
      }
    }
    // many live keys: sweep again only when they have doubled, not on every new key
    this.sweepAt = Math.min(MAX_KEYS, Math.max(SWEEP_AT, this.windows.size * 2));
  }
}
