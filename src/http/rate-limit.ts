import type { AppDeps } from "../deps.ts";
import { AppError, errors } from "../errors.ts";
import type { PlanLimits } from "../modules/billing/plans.ts";
import { consumeQuota } from "../modules/billing/quota.ts";
import type { AuthContext } from "../auth/context.ts";
import type { RateDecision } from "../rate-limiter.ts";

type HeaderSet = { headers: Record<string, string | number> };

/**
 * Counts a request of a member or an API key (its id) against `rateLimitPerMinute`: sets the
 * `RateLimit-*` headers, or throws 429 RATE_LIMITED with `Retry-After`. At once in memory
 * (SQLite); a promise when the count is in the database (PostgreSQL, shared by the nodes).
 */
function rateLimit(deps: Pick<AppDeps, "limiters">, kind: AuthContext["kind"], id: string, set?: HeaderSet): void | Promise<void> {
  const d = deps.limiters[kind].hit(id);
  if (d instanceof Promise) return d.then((decided) => applyDecision(decided, set));
  applyDecision(d, set);
}

function applyDecision(d: RateDecision, set?: HeaderSet): void {
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
export function admitRequest(deps: Pick<AppDeps, "db" | "clock" | "limiters" | "apiQuota">, auth: AuthContext, set?: HeaderSet, limits?: PlanLimits): void | Promise<void> {
  const limited = rateLimit(deps, auth.kind, auth.kind === "user" ? auth.userId : auth.apiKeyId, set);
  if (limited) return limited.then(() => admitQuota(deps, auth, limits));
  return admitQuota(deps, auth, limits);
}

function admitQuota(deps: Pick<AppDeps, "db" | "clock" | "apiQuota">, auth: AuthContext, limits?: PlanLimits): void | Promise<void> {
  if (auth.kind !== "apiKey") return;
  if (!limits) return consumeQuota(deps, auth.workspaceId, "apiRequestsPerDay", 1).then(() => {});
  // consumeQuota's path for one API request with the limits known, without its promise
  const limit = limits.apiRequestsPerDay;
  const used = deps.apiQuota.take(auth.workspaceId, deps.clock.now(), limit);
  if (used instanceof Promise) return used.then((u) => overQuota(u, limit));
  overQuota(used, limit);
}

function overQuota(used: number | null, limit: number): void {
  if (used === null) throw errors.limitExceeded(`Plan limit reached: apiRequestsPerDay (${limit})`);
}
