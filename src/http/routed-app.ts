import { Elysia } from "elysia";
import type { AppDeps } from "../deps.ts";
import { allowedMethods, type AllowedMethods } from "./allowed-methods.ts";
import { authGuard } from "./auth-guard.ts";
import { corePlugin } from "./core-plugin.ts";
import { errorsPlugin } from "./errors-plugin.ts";
import { mediaCredentialGate } from "./media-gate.ts";
import { httpMetricsPlugin } from "../modules/metrics/http-plugin.ts";

/**
 * The app before its routes: the core plugins (request id, errors, the media gate, request
 * timing) and the guard's route options (`jwt`, `apiKey`, `jwtOrApiKey`), used once here so
 * that route modules, plugin functions of this app, register each route once, on the app.
 */
export function routedApp(deps: AppDeps) {
  // systemRouter false: Elysia's own router, not a Bun.serve `routes` map, which Elysia built
  // with an entry per route (~150) at every start: 10-15 ms of a 55-70 ms start, requests
  // measured the same (issue 13). standardHostname false: its router then finds the path after
  // "http://" instead of assuming a host of 4 characters or more (`Host: x` routed to a wrong
  // path); the server speaks plain HTTP (TLS ends at a proxy).
  // built on the first unmatched request, from the finished route table
  let methods: AllowedMethods | undefined;
  const allowed = (path: string): string[] => (methods ??= allowedMethods(app.routes))(path);
  const app = new Elysia({ name: "parley", systemRouter: false, handler: { standardHostname: false } })
    .use(corePlugin(deps.config, deps.log))
    .use(errorsPlugin(deps.log, deps.writeHealth, allowed))
    .use(mediaCredentialGate(deps))
    // request timing only when /metrics exists: without a scraper it would be work for nobody
    .use(deps.config.metricsToken ? httpMetricsPlugin() : new Elysia())
    .use(authGuard(deps));
  return app;
}

/** The app a route module registers its routes on: `(app: RoutedApp) => app.get("/api/v1/...", handler, { jwt: "read", detail: { tags, ... } })`. */
export type RoutedApp = ReturnType<typeof routedApp>;
