import type { AppDeps } from "../../deps.ts";
import type { AppEvent } from "../../events/bus.ts";
import { defaultBackoff, RetryLaterError, type JobHandler } from "../../jobs/queue.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { isMaterialized, materialize } from "./audience.ts";
import { skipUnsent } from "./held.ts";
import { precheckRecipients } from "./dispatch.ts";
import { RUN_JOB, pauseCampaign, tick } from "./engine.ts";
import { changeStatus, flushProgress, PROGRESS_JOB } from "./progress.ts";
import { activeCampaigns, findCampaign } from "./repo.ts";
import { utcDay } from "./pacing.ts";
import { eventRecipient, trackEvent } from "./tracking.ts";

/** The events campaigns follow (the rest cost nothing). */
const TRACKED: ReadonlySet<string> = new Set(["message_sent", "message_delivered", "message_read", "message_failed", "session_disconnected"]);

interface CampaignJob {
  workspaceId: string;
  campaignId: string;
}

/**
 * The run job of one campaign (one per campaign, dedupe key): fires a scheduled campaign (or
 * pauses it with `missed_schedule`), materialises the audience a start left (or a crash cut short), then ticks and
 * sleeps until the next session's turn. Every step reads and writes rows only.
 */
async function runCampaign(deps: AppDeps, { workspaceId, campaignId }: CampaignJob): Promise<void> {
  const c = await findCampaign(deps.db, workspaceId, campaignId);
  if (!c) return;
  // a cancel whose request answered before every recipient was skipped: the rest now
  if (c.status === "cancelled") return void (await skipUnsent(deps, workspaceId, campaignId));
  // the audience first, whatever the status (a scheduled or paused campaign shows its recipients
  // too); it stops by itself when the campaign is cancelled meanwhile
  if (!isMaterialized(c)) await materialize(deps, workspaceId, campaignId);
  if (c.status === "scheduled" && c.schedule) {
    const at = Date.parse(c.schedule.at);
    const now = deps.clock.now().getTime();
    if (at > now) throw new RetryLaterError(at - now, "scheduled");
    const missed = now - at > c.schedule.maxLatenessMinutes * 60_000;
    await deps.db.tx(async () => {
      const fresh = await findCampaign(deps.db, workspaceId, campaignId);
      if (fresh?.status !== "scheduled") return;
      // the server was down past the campaign's time: do not fire late, let a person decide
      if (missed) await pauseCampaign(deps, fresh, "missed_schedule");
      else await changeStatus(deps, fresh, { status: "running" });
    });
  }
  if ((await findCampaign(deps.db, workspaceId, campaignId))?.status !== "running") return;
  // outside any transaction: it may ask the network
  await precheckRecipients(deps, workspaceId, campaignId, c.sessionIds);
  // tick reads the campaign again in its transaction: a pause or cancel meanwhile is seen there
  const wakeAt = await deps.db.tx(() => tick(deps, workspaceId, campaignId));
  if (wakeAt === null) return;
  throw new RetryLaterError(Math.max(0, wakeAt - deps.clock.now().getTime()), "next turn");
}

export interface CampaignServices {
  periodic: PeriodicJob[];
  start(): Promise<void>;
}

/** Registers the campaign jobs and the bus hook, and declares the safety-net sweep. */
export function campaignServices(deps: AppDeps): CampaignServices {
  const run: JobHandler<CampaignJob> = {
    kind: RUN_JOB,
    // its reschedules (RetryLaterError, every turn) spend no attempt: these count real failures
    // only, and the sweep gives a running campaign a new run job if this one fails for good
    maxAttempts: 20,
    leaseMs: 10_000,
    backoffMs: (attempt) => Math.min(30_000, defaultBackoff(attempt)),
    run: (p) => runCampaign(deps, p),
  };
  deps.jobs.register(run);
  deps.jobs.register<CampaignJob>({
    kind: PROGRESS_JOB,
    maxAttempts: 10,
    run: async (p) => {
      const wait = await flushProgress(deps, p.workspaceId, p.campaignId);
      if (wait > 0) throw new RetryLaterError(wait, "progress throttle");
    },
  });
  // synchronous for the events campaigns do not follow (the bus awaits only a promise)
  deps.bus.onPublish((e) => (TRACKED.has(e.event) ? track(e) : undefined));
  // in a savepoint: a campaign's bookkeeping that fails must not roll back the message or session
  // change being published (the sender would then retry a message the network already took)
  async function track(e: AppEvent): Promise<void> {
    try {
      const recipient = await eventRecipient(deps, e);
      if (recipient === null) return; // a message no campaign sent: no savepoint
      await deps.db.tx(() => trackEvent(deps, e, tick, recipient));
    } catch (err) {
      deps.log.error("campaign bookkeeping failed; the run job and the sweep look again", { event: e.event, err });
    }
  }
  /** Every running or scheduled campaign has its run job; every unannounced change its progress job. */
  const sweep = async () => {
    for (const c of await activeCampaigns(deps.db)) {
      // one transaction per campaign: the dedupe look-up and the insert of each enqueue go together
      await deps.db.tx(async () => {
        if (c.status === "running" || c.status === "scheduled") await deps.jobs.enqueue(RUN_JOB, { workspaceId: c.workspaceId, campaignId: c.id }, { dedupeKey: `${RUN_JOB}:${c.id}` });
        if (c.progressDirty) await deps.jobs.enqueue(PROGRESS_JOB, { workspaceId: c.workspaceId, campaignId: c.id }, { dedupeKey: `${PROGRESS_JOB}:${c.id}` });
      });
      // a cancel cut short (a crash) between its batches: the rest of its recipients are skipped now
      if (c.status === "cancelled") await skipUnsent(deps, c.workspaceId, c.id);
    }
  };
  return {
    periodic: [
      { name: "campaigns.sweep", schedule: "*/30 * * * * *", run: sweep },
      {
        // daily caps look at today only: older counters are history nobody reads
        name: "campaigns.prune-send-days",
        schedule: "23 4 * * *",
        run: async () => void (await deps.db.prepare("DELETE FROM campaign_send_days WHERE day < ?").run(utcDay(deps.clock.now().getTime() - 7 * 86_400_000))),
      },
    ],
    start: sweep,
  };
}

