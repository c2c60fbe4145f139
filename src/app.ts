import { Elysia } from "elysia";
import type { AppDeps } from "./deps.ts";
import type { Services } from "./services.ts";
import { corePlugin } from "./http/core-plugin.ts";
import { errorsPlugin } from "./http/errors-plugin.ts";
import { allowedMethods, type AllowedMethods } from "./http/allowed-methods.ts";
import { authRoutes } from "./modules/auth/routes.ts";
import { apiKeyRoutes } from "./modules/apikeys/routes.ts";
import { billingRoutes } from "./modules/billing/routes.ts";
import { docsRoutes } from "./modules/docs/routes.ts";
import { healthRoutes } from "./modules/health/routes.ts";
import { pagesRoutes } from "./modules/pages/routes.ts";
import { teamRoutes } from "./modules/team/routes.ts";
import { workspaceRoutes } from "./modules/workspaces/routes.ts";
import { realtimeRoutes } from "./modules/realtime/routes.ts";
import { sessionRoutes } from "./modules/sessions/routes.ts";
import { numberRoutes } from "./modules/numbers/routes.ts";
import { groupRoutes } from "./modules/groups/routes.ts";
import { simRoutes } from "./modules/sim/routes.ts";
import { simControlOf } from "./network/sim/control.ts";
import { webhookRoutes } from "./modules/webhooks/routes.ts";
import { contactsRoutes } from "./modules/contacts/routes.ts";
import { segmentRoutes } from "./modules/segments/routes.ts";
import { inboxRoutes } from "./modules/inbox/routes.ts";
import { quickRepliesRoutes } from "./modules/quick-replies/routes.ts";
import { analyticsRoutes } from "./modules/analytics/routes.ts";
import { mediaRoutes } from "./modules/media/routes.ts";
import { messagesRoutes } from "./modules/messages/routes.ts";
import { externalMessagesRoutes } from "./modules/messages/routes-external.ts";
import { externalContactsRoutes } from "./modules/contacts/routes-external.ts";
import { httpMetricsPlugin } from "./modules/metrics/http-plugin.ts";
import { mediaCredentialGate } from "./http/media-gate.ts";
import { metricsRoutes } from "./modules/metrics/routes.ts";
import { webRoutes } from "./modules/web/routes.ts";
import { campaignRoutes } from "./modules/campaigns/routes.ts";
import { automationRoutes } from "./modules/automations/routes.ts";

/** Composes the whole HTTP application over the runtime's deps and services; never listens (tests call `app.handle`). */
export function buildApp(deps: AppDeps, services: Pick<Services, "sessions" | "realtime">) {
  // systemRouter false: Elysia's own router, not a Bun.serve `routes` map, which Elysia built
  // with an entry per route (~150) at every start: 10-15 ms of a 55-70 ms start, requests
  // measured the same (issue 13). standardHostname false: its router then finds the path after
  // "http://" instead of assuming a host of 4 characters or more (`Host: x` routed to a wrong
  // path); the server speaks plain HTTP (TLS ends at a proxy).
  // built on the first unmatched request, from the finished route table
  let methods: AllowedMethods | undefined;
  let routes: () => readonly { method: string; path: string }[] = () => [];
  const allowed = (path: string): string[] => (methods ??= allowedMethods(routes()))(path);
  const app = new Elysia({ name: "parley", systemRouter: false, handler: { standardHostname: false } })
    .use(corePlugin(deps.config, deps.log))
    .use(errorsPlugin(deps.log, deps.writeHealth, allowed))
    .use(mediaCredentialGate(deps))
    // request timing only when /metrics exists: without a scraper it would be work for nobody
    .use(deps.config.metricsToken ? httpMetricsPlugin() : new Elysia())
    .use(metricsRoutes(deps))
    .use(docsRoutes(deps.version))
    .use(healthRoutes(deps))
    .use(pagesRoutes())
    .use(webRoutes())
    .use(authRoutes(deps))
    .use(apiKeyRoutes(deps))
    .use(teamRoutes(deps))
    .use(workspaceRoutes(deps))
    .use(billingRoutes(deps))
    .use(sessionRoutes(deps, services.sessions))
    .use(numberRoutes(deps))
    .use(groupRoutes(deps))
    .use(realtimeRoutes(deps, services.realtime))
    .use(webhookRoutes(deps))
    .use(messagesRoutes(deps))
    .use(mediaRoutes(deps))
    .use(inboxRoutes(deps))
    .use(quickRepliesRoutes(deps))
    .use(analyticsRoutes(deps))
    .use(contactsRoutes(deps))
    .use(externalMessagesRoutes(deps))
    .use(externalContactsRoutes(deps))
    .use(campaignRoutes(deps))
    .use(segmentRoutes(deps))
    .use(automationRoutes(deps))
    // the sim network's routes (docs/network-drivers.md) exist only while the server runs on it
    .use(simRoutesOf(deps));
  routes = () => app.routes;
  return app;
}

/** The sim network's routes, when the node runs on it (in this process or linked to a sim network process). */
function simRoutesOf(deps: AppDeps) {
  const control = simControlOf(deps.network);
  return control ? simRoutes(deps, control) : new Elysia();
}

export type App = ReturnType<typeof buildApp>;
