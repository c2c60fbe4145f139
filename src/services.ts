import type { AppDeps } from "./deps.ts";
import type { PeriodicJob } from "./jobs/periodic.ts";
import { authPeriodicJobs } from "./modules/auth/periodic.ts";
import { apiKeyJobs, flushApiKeyUsage } from "./modules/apikeys/jobs.ts";
import { billingJobs } from "./modules/billing/jobs.ts";
import { sessionManager } from "./modules/sessions/manager.ts";
import type { WebhookDispatcher } from "./modules/webhooks/dispatcher.ts";
import { webhookServices } from "./modules/webhooks/setup.ts";
import { messagingServices } from "./modules/messages/wiring.ts";
import { campaignServices } from "./modules/campaigns/wiring.ts";
import { contactsServices } from "./modules/contacts/wiring.ts";

/** Long-lived services built once over the deps: the modules' background side. */
export interface Services {
  periodic: PeriodicJob[];
  /** sends webhook deliveries (tests call `runDue()`) */
  webhooks: WebhookDispatcher;
  /** Starts background work that needs the server to be up (restoring sessions, ...). */
  start(): Promise<void>;
  /** Stops background work before the database closes. */
  stop(): Promise<void>;
  /** Resolves once the network events heard so far are handled (tests wait on it instead of sleeping). */
  settled(): Promise<void>;
}

const DAY = 86_400_000;

/** Wires every module's services, job handlers and periodic jobs. */
export function createServices(deps: AppDeps): Services {
  const webhooks = webhookServices(deps);
  const periodic: PeriodicJob[] = [
    ...webhooks.periodic,
    {
      name: "jobs.prune",
      schedule: "17 3 * * *",
      run: async () => {
        const cutoff = deps.clock.now().getTime() - 7 * DAY;
        await deps.db.prepare("DELETE FROM jobs WHERE status = 'done' AND updated_at < ?").run(cutoff);
      },
    },
    ...authPeriodicJobs(deps),
    ...billingJobs(deps),
    ...apiKeyJobs(deps),
  ];
  const sessions = sessionManager(deps);
  const messaging = messagingServices(deps);
  contactsServices(deps);
  periodic.push(...messaging.periodic);
  const campaigns = campaignServices(deps);
  periodic.push(...campaigns.periodic);
  let restoring: Promise<void> | undefined;
  return {
    periodic,
    webhooks: webhooks.dispatcher,
    async start() {
      await webhooks.start();
      await messaging.start();
      await campaigns.start();
      // sessions come back one by one in the background: start-up does not wait for all of them
      restoring = sessions.restore().catch((err) => deps.log.error("restoring sessions failed", { err }));
    },
    settled: () => messaging.settled(),
    async stop() {
      sessions.stop();
      await restoring;
      await sessions.settled();
      await messaging.stop();
      await webhooks.stop();
      await flushApiKeyUsage(deps);
    },
  };
}
