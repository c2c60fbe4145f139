import { mark } from "./start-mark.ts";
import { giveWay } from "./yield.ts";
import type { AppDeps } from "./deps.ts";
import type { PeriodicJob } from "./jobs/periodic.ts";
import { authPeriodicJobs } from "./modules/auth/periodic.ts";
import { apiKeyJobs } from "./modules/apikeys/jobs.ts";
import { billingJobs } from "./modules/billing/jobs.ts";
import { SessionManager } from "./modules/sessions/manager.ts";
import { instruments } from "./modules/metrics/counters.ts";
import { RealtimeHub } from "./modules/realtime/hub.ts";
import { memberRoleLookup } from "./modules/realtime/repo.ts";
import type { WebhookDispatcher } from "./modules/webhooks/dispatcher.ts";
import { webhookServices } from "./modules/webhooks/setup.ts";
import { messagingServices, type MessagingServices } from "./modules/messages/wiring.ts";
import { campaignServices } from "./modules/campaigns/wiring.ts";
import { contactsServices } from "./modules/contacts/wiring.ts";
import { automationServices } from "./modules/automations/wiring.ts";

/**
 * The modules' long-lived services, built once per runtime over its deps (createRuntime builds
 * them, hands sessions and realtime to the app, and stops them all, in order, in one place).
 */
export interface Services {
  periodic: PeriodicJob[];
  /** sends webhook deliveries (tests call `runDue()`) */
  webhooks: WebhookDispatcher;
  /** the live network connections of the sessions */
  sessions: SessionManager;
  /** the real-time WebSocket clients */
  realtime: RealtimeHub;
  /** inbound messages, receipts and the outbound sender */
  messaging: MessagingServices;
  /**
   * Starts the webhook dispatcher, the outbound queue, the campaigns and the sessions' restore,
   * each after `turn()` (default: a turn of the event loop). The server listens already: on SQLite
   * every statement runs on the event loop, and a request that arrives meanwhile is answered
   * between two parts instead of after all of them (their writes, the first of which makes the
   * WAL file and syncs it and its folder, included). `turn` resolving false stops there (the
   * runtime is stopping).
   */
  start(turn?: () => Promise<boolean>): Promise<void>;
  /** Resolves once the restoring of sessions that `start` began is over (at once if it never began). */
  restored(): Promise<void>;
  /** Resolves once the network events heard so far are handled (tests wait on it instead of sleeping). */
  settled(): Promise<void>;
}

const DAY = 86_400_000;

/** A turn of the event loop, then go on. */
const nextTurn = async (): Promise<boolean> => {
  await giveWay();
  return true;
};

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
  // the session manager listens to the driver before messaging does (its order of old)
  const sessions = new SessionManager(deps);
  const messaging = messagingServices(deps);
  contactsServices(deps);
  // after the opt-out keywords: a STOP is seen before an auto-reply is decided
  automationServices(deps);
  periodic.push(...messaging.periodic);
  const campaigns = campaignServices(deps);
  periodic.push(...campaigns.periodic);
  // the last subscriber of the bus: its events reach the sockets after the modules' own hooks
  const realtime = new RealtimeHub(deps.bus, {
    pingIntervalMs: deps.config.wsPingIntervalMs,
    clock: deps.clock,
    log: deps.log.child({ component: "realtime" }),
    memberRole: memberRoleLookup(deps.db),
    maxBufferedBytes: deps.config.wsMaxBufferedBytes,
    onSlowClosed: () => {
      const m = instruments();
      m.realtimeClosed.inc({ reason: "slow" });
      m.realtimeDropped.inc();
    },
  });
  let restoring: Promise<void> = Promise.resolve();
  return {
    periodic,
    webhooks: webhooks.dispatcher,
    sessions,
    realtime,
    messaging,
    async start(turn = nextTurn) {
      const steps: [string, () => Promise<void>][] = [
        ["webhooks started", () => webhooks.start()],
        ["messaging started", () => messaging.start()],
        ["campaigns started", () => campaigns.start()],
        // sessions come back one by one in the background: start-up does not wait for all of them
        ["restore begun", async () => void (restoring = sessions.restore().catch((err) => deps.log.error("restoring sessions failed", { err })))],
      ];
      for (const [done, step] of steps) {
        if (!(await turn())) return;
        await step();
        mark(done);
      }
    },
    restored: () => restoring,
    settled: () => messaging.settled(),
  };
}
