import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { createMetricsRegistry } from "./registry.ts";

const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

/** Constant-time comparison of a presented bearer token with the configured one. */
function tokenMatches(header: string | null, token: string): boolean {
  const presented = Buffer.from(header?.startsWith("Bearer ") ? header.slice(7) : "");
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * GET /metrics (D15): Prometheus text, for a scraper holding `metricsToken` as a bearer token.
 * Without the setting the route does not exist (404 like any unknown path); a wrong token is 401.
 */
export function metricsRoutes(deps: Pick<AppDeps, "sqlite" | "config" | "clock" | "bus" | "version">) {
  const token = deps.config.metricsToken;
  if (!token) return new Elysia({ name: "parley-metrics-off" });
  const { registry } = createMetricsRegistry(deps);
  return new Elysia({ name: "parley-metrics" }).get(
    "/metrics",
    async ({ request }) => {
      if (!tokenMatches(request.headers.get("authorization"), token)) throw errors.unauthorized("Missing or wrong metrics token");
      return new Response(await registry.metrics(), { headers: { "content-type": PROMETHEUS_TEXT } });
    },
    { detail: { hide: true } },
  );
}
