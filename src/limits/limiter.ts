import type { Clock } from "../clock.ts";
import type { DB } from "../db/store.ts";
import { RateLimiter, type RateDecision } from "../rate-limiter.ts";
import { SharedRateLimiter } from "./shared-limiter.ts";

/**
 * Fixed-window rate limiting, in memory (RateLimiter: one process, SQLite) or in the database
 * (SharedRateLimiter: the nodes of a PostgreSQL cluster share each count). The answers are
 * immediate in memory and promises in the database; callers await both.
 */
export interface Limiter {
  readonly limit: number;
  /** Counts one request of `key` if it is within the limit, and says whether it was. */
  hit(key: string): RateDecision | Promise<RateDecision>;
  /** `hit`, refused with 429 RATE_LIMITED and Retry-After once over the limit. */
  take(key: string, message?: string): void | Promise<void>;
  /** Throws 429 when the key already used up its window (without counting). */
  check(key: string, message?: string): void | Promise<void>;
  /** Counts one event (a failed login) without refusing. */
  add(key: string): void | Promise<void>;
  /** Forgets a key (a successful login clears its failures). */
  clear(key: string): void | Promise<void>;
}

/**
 * The limiter for a store: in memory on SQLite (one process counts every request, exactly), in
 * the `rate_windows` table on PostgreSQL, where any node may answer a request. `name` keeps the
 * limiters' keys apart in the table.
 */
export function limiterFor(db: DB, clock: Clock, name: string, limit: number, windowMs = 60_000): Limiter {
  return db.engine === "postgres" ? new SharedRateLimiter(db, clock, name, limit, windowMs) : new RateLimiter(clock, limit, windowMs);
}
