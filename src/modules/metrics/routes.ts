import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { nodeCrypto } from "../../node/lazy.ts";
import type { RoutedApp } from "../../http/routed-app.ts";

const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

const digest = (s: string) => nodeCrypto().createHash("sha256").update(s).digest();

/**
 * Constant-time comparison of a presented bearer token with the configured one. Both sides are
 * hashed first, so neither the content nor the length of the token shows in the timing; the
 * scheme is case-insensitive (RFC 9110), as scrapers and proxies may write `bearer`.
 */
function tokenMatches(header: string | null, expected: Buffer): boolean {
  const m = /^bearer +(.+)$/i.exec(header?.trim() ?? "");
  return nodeCrypto().timingSafeEqual(digest(m?.[1] ?? ""), expected) && m !== null;
}

/**
 * GET /metrics (docs/operations.md): Prometheus text, for a scraper holding `metricsToken` as a bearer token.
 * Without the setting the route does not exist (404 like any unknown path); a wrong token is 401.
 */
export function metricsRoutes(deps: Pick<AppDeps, "db" | "config" | "clock" | "bus" | "version" | "leases">) {
  const token = deps.config.metricsToken;
  if (!token) return (app: RoutedApp) => app;
  // required here, not imported: prom-client and the registry load only with a metrics token
  const { createMetricsRegistry } = require("./registry.ts") as typeof import("./registry.ts");
  const { registry } = createMetricsRegistry(deps);
  const expected = digest(token);
  return (app: RoutedApp) => app.get(
    "/metrics",
    async ({ request }) => {
      if (!tokenMatches(request.headers.get("authorization"), expected)) throw errors.unauthorized("Missing or wrong metrics token");
      return new Response(await registry.metrics(), { headers: { "content-type": PROMETHEUS_TEXT } });
    },
    { detail: { hide: true } },
  );
}
