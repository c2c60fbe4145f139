import type { AppDeps } from "./deps.ts";
import type { Services } from "./services.ts";
import { routedApp, type RoutedApp } from "./http/routed-app.ts";
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
import { metricsRoutes } from "./modules/metrics/routes.ts";
import { webRoutes } from "./modules/web/routes.ts";
import { campaignRoutes } from "./modules/campaigns/routes.ts";
import { automationRoutes } from "./modules/automations/routes.ts";

/** Composes the whole HTTP application over the runtime's deps and services; never listens (tests call `app.handle`). */
export function buildApp(deps: AppDeps, services: Pick<Services, "sessions" | "realtime">) {
  const app = routedApp(deps)
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
  return app;
}

/** The sim network's routes, when the node runs on it (in this process or linked to a sim network process). */
function simRoutesOf(deps: AppDeps) {
  const control = simControlOf(deps.network);
  return control ? simRoutes(deps, control) : (app: RoutedApp) => app;
}

export type App = ReturnType<typeof buildApp>;
