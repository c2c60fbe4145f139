import type { AuthKit } from "./kit.ts";
import { clientIp } from "./throttle.ts";

/**
 * Each auth route (docs/authentication.md) takes `authRateLimitPerMinute` requests a minute per IP; beyond, 429
 * RATE_LIMITED with Retry-After. A transform hook of each route that has it (`{ transform: throttle }`,
 * before the guard's options), so it runs before validation and the credential check: malformed
 * and unauthenticated requests count too.
 */
export function routeThrottle(kit: AuthKit) {
  return ({ request }: { request: Request }) => {
    const ip = clientIp(request, kit.server.current, kit.deps.config.trustProxy);
    return kit.routeLimiter.take(`${ip} ${request.method} ${throttlePath(new URL(request.url).pathname)}`);
  };
}

/** The pathname a route's budget is keyed by: the router serves `/login/` as `/login`, so they share one. */
export function throttlePath(pathname: string): string {
  return pathname.replace(/\/+$/, "") || "/";
}
