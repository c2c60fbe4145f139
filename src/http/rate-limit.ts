import type { Clock } from "../clock.ts";
import type { DB } from "../db/store.ts";
import type { AppDeps } from "../deps.ts";
import { AppError, errors } from "../errors.ts";
import { dailyApiQuota } from "../modules/apikeys/daily-quota.ts";
import type { PlanLimits } from "../modules/billing/plans.ts";
import { consumeQuota } from "../modules/billing/quota.ts";
import type { AuthContext } from "./auth-guard.ts";

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

const SWEEP_AT = 10_000;

/**
 * Fixed one-minute windows per key, in memory: a limit on request rate need not survive a
 * restart (the daily API quota, which must, lives in rows).
 */
export class RateLimiter {
  private windows = new Map<string, Window>();

  constructor(
    private clock: Clock,
    private limit: number,
    private windowMs = 60_000,
  ) {}

  /** Counts one request of `key` and says whether it is within the limit. */
  hit(key: string): RateDecision {
    const now = this.clock.nowMs();
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs || now < w.start) {
      if (!w && this.windows.size >= SWEEP_AT) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    const resetSeconds = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    if (w.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    w.count++;
    return { allowed: true, limit: this.limit, remaining: this.limit - w.count, resetSeconds };
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
  }
}

/** Members and API keys counted apart, each by its id: no key string is built per request. */
type Limiters = Record<AuthContext["kind"], RateLimiter>;

// one pair of limiters per runtime (keyed by its database), however many modules mount the guard
const limiters = new WeakMap<DB, Limiters>();

function limitersFor(deps: Pick<AppDeps, "db" | "clock" | "config">): Limiters {
  let l = limiters.get(deps.db);
  if (!l) {
    const limit = deps.config.rateLimitPerMinute;
    l = { user: new RateLimiter(deps.clock, limit), apiKey: new RateLimiter(deps.clock, limit) };
    limiters.set(deps.db, l);
  }
  return l;
}

type HeaderSet = { headers: Record<string, string | number> };

/**
 * Counts a request of a member or an API key (its id) against `rateLimitPerMinute`: sets the
 * `RateLimit-*` headers, or throws 429 RATE_LIMITED with `Retry-After`.
 */
function rateLimit(deps: Pick<AppDeps, "db" | "clock" | "config">, kind: AuthContext["kind"], id: string, set?: HeaderSet): void {
  const d = limitersFor(deps)[kind].hit(id);
  if (!d.allowed) {
    throw new AppError("RATE_LIMITED", `Rate limit of ${d.limit} requests a minute reached; retry in ${d.resetSeconds} s`, {
      headers: {
        "RateLimit-Limit": String(d.limit),
        "RateLimit-Remaining": String(d.remaining),
        "RateLimit-Reset": String(d.resetSeconds),
        "Retry-After": String(d.resetSeconds),
      },
    });
  }
  if (set) {
    set.headers["RateLimit-Limit"] = String(d.limit);
    set.headers["RateLimit-Remaining"] = String(d.remaining);
    set.headers["RateLimit-Reset"] = String(d.resetSeconds);
  }
}

/**
 * Admission of an authenticated, permitted request (called by the auth guard): the rate limit per user
 * or API key, then for API keys the workspace's daily API-request quota (403 LIMIT_EXCEEDED), against
 * `limits` when the guard read them with the key. Decided at once (no promise) unless the quota's
 * row must be read first (see DailyApiQuota.take) or the limits were not read with the key.
 */
export function admitRequest(deps: Pick<AppDeps, "db" | "clock" | "config">, auth: AuthContext, set?: HeaderSet, limits?: PlanLimits): void | Promise<void> {
  rateLimit(deps, auth.kind, auth.kind === "user" ? auth.userId : auth.apiKeyId, set);
  if (auth.kind !== "apiKey") return;
  if (!limits) return consumeQuota(deps, auth.workspaceId, "apiRequestsPerDay", 1).then(() => {});
  // consumeQuota's path for one API request with the limits known, without its promise
  const limit = limits.apiRequestsPerDay;
  const used = dailyApiQuota(deps.db).take(auth.workspaceId, deps.clock.now(), limit);
  if (used instanceof Promise) return used.then((u) => overQuota(u, limit));
  overQuota(used, limit);
}

function overQuota(used: number | null, limit: number): void {
  if (used === null) throw errors.limitExceeded(`Plan limit reached: apiRequestsPerDay (${limit})`);
}
