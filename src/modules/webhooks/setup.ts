import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { extraCa } from "./deliver.ts";
import { WebhookDispatcher } from "./dispatcher.ts";
import { registerOutbox } from "./outbox.ts";
import { DISABLED_NOTICE_JOB } from "./record.ts";
import { ownerEmails } from "../users/repo.ts";
import * as repo from "./repo.ts";
import type { DisabledReason } from "./table.ts";
import { escapeHtml } from "../../http/html.ts";

const DAY = 86_400_000;

const REASONS: Record<DisabledReason, string> = {
  gone: "the receiver answered 410 Gone",
  failing: "every delivery attempt failed for 5 days in a row",
};

/** The webhooks' background side: outbox subscriber, dispatcher, owner notices, retention. */
export function webhookServices(deps: AppDeps) {
  extraCa(deps.config.webhookCaFile); // fail at start-up, not at every delivery
  const dispatcher = new WebhookDispatcher(deps);
  registerOutbox(deps, () => dispatcher.wake());

  deps.jobs.register<{ workspaceId: string; webhookId: string; reason: DisabledReason }>({
    kind: DISABLED_NOTICE_JOB,
    async run({ workspaceId, webhookId, reason }) {
      const hook = await repo.getWebhook(deps.db, workspaceId, webhookId);
      if (!hook || hook.isActive) return; // deleted or switched back on meanwhile
      const text = `Your webhook "${hook.name}" (${hook.url}) was deactivated because ${REASONS[reason]}.\n\n` +
        `Events are no longer sent to it. Fix the receiver, then switch the webhook back on (PATCH /api/webhooks/${hook.id} {"isActive": true}); ` +
        `deliveries that were still waiting will then be sent.`;
      for (const to of await ownerEmails(deps.db, workspaceId)) {
        await deps.notifier.sendEmail({ to, subject: `Webhook "${hook.name}" deactivated`, text, html: `<p>${escapeHtml(text).replace(/\n\n/g, "</p><p>")}</p>`, kind: "alert" });
      }
    },
  });

  const periodic: PeriodicJob[] = [
    {
      name: "webhooks.prune",
      schedule: "23 * * * *",
      run: async () => {
        await failInterruptedTests(deps);
        const n = await pruneDeliveries(deps);
        if (n) deps.log.info("webhook deliveries pruned", { deleted: n });
      },
    },
  ];

  return {
    dispatcher,
    periodic,
    start: async () => {
      await failInterruptedTests(deps);
      dispatcher.start();
    },
  };
}

/** Marks test deliveries cut short by a crash `failed` (at start-up and hourly). Returns how many. */
export async function failInterruptedTests(deps: AppDeps): Promise<number> {
  const n = await deps.deliveries.failInterruptedTests(deps.clock.now().getTime());
  if (n) deps.log.warn("interrupted test deliveries marked failed", { count: n });
  return n;
}

/** Deletes finished delivery history (success, failed) older than the retention setting, in batches. Returns how many went. */
export async function pruneDeliveries(deps: AppDeps): Promise<number> {
  const now = deps.clock.now().getTime();
  const cutoff = now - deps.config.webhookRetentionDays * DAY;
  let total = 0;
  for (;;) {
    const n = await deps.deliveries.prune(cutoff, now);
    total += n;
    if (n === 0) return total;
  }
}
