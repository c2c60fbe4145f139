import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { assertFeature } from "../billing/quota.ts";
import { commitMedia, discardMedia } from "../media/service.ts";
import type { SendBody } from "../messages/model.ts";
import { resolveSendMedia } from "../messages/send-media.ts";
import { audienceFilterAtStart, materializeBatch } from "./audience.ts";
import { pauseCampaign, wakeRun } from "./engine.ts";
import { cancelQueued, releaseHeld, skipUnsent } from "./held.ts";
import type { CampaignMessage } from "./model.ts";
import { changeStatus, moveCounter, publishProgress } from "./progress.ts";
import { updateCampaign, type CampaignRow } from "./repo.ts";
import { requireCampaign } from "./service.ts";
import type { CampaignStatus } from "./table.ts";
import { campaignOut } from "./waiting.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "clock" | "jobs" | "log" | "config">;

function inStatus(c: CampaignRow, allowed: CampaignStatus[], action: string): void {
  if (!allowed.includes(c.status)) throw errors.conflict(`Cannot ${action} a ${c.status} campaign`);
}

/** Where a schedule stands now: not due yet, due, or missed by more than its maximum lateness. */
function scheduleState(c: CampaignRow, now: number): { kind: "none" | "due" | "missed" } | { kind: "future"; at: number } {
  if (!c.schedule) return { kind: "none" };
  const at = Date.parse(c.schedule.at);
  if (at > now) return { kind: "future", at };
  return now - at > c.schedule.maxLatenessMinutes * 60_000 ? { kind: "missed" } : { kind: "due" };
}

/** A `mediaUrl` is fetched once, at start, with the send path's guard; every recipient gets that copy. */
async function prepareCampaignMedia(deps: Deps, c: CampaignRow) {
  const m = c.message as CampaignMessage;
  if (m.type === "text" || !m.mediaUrl || c.mediaId) return null;
  const input = { type: m.type, mediaUrl: m.mediaUrl, filename: m.filename } as unknown as SendBody;
  return (await resolveSendMedia(deps, c.workspaceId, input))?.prepared ?? null;
}

/**
 * POST start: draft to running, or scheduled while `schedule.at` is in the future (paused with
 * `missed_schedule` when it passed longer ago than its maximum lateness). The audience is frozen
 * now (the filter and the time it is evaluated at are kept on the campaign); the answer carries
 * the first batch of recipients (all of a small audience) and the campaign's run job writes the
 * rest, batch by batch, each with its cursor (a crash resumes from it), so the request answers
 * at once whatever the audience.
 */
export async function startCampaign(deps: Deps, workspaceId: string, id: string) {
  await assertFeature(deps, workspaceId, "campaigns");
  inStatus(await requireCampaign(deps, workspaceId, id), ["draft"], "start");
  // fetched outside the transaction (network I/O); the status is checked again inside it
  const prepared = await prepareCampaignMedia(deps, await requireCampaign(deps, workspaceId, id));
  try {
    await deps.db.tx(async () => {
      const c = await requireCampaign(deps, workspaceId, id);
      inStatus(c, ["draft"], "start");
      await assertFeature(deps, workspaceId, "campaigns");
      const now = deps.clock.now().getTime();
      const media = prepared ? (await commitMedia(deps, prepared)).id : c.mediaId;
      const s = scheduleState(c, now);
      const audienceFilter = await audienceFilterAtStart(deps, c);
      const patch = { startedAt: now, mediaId: media, pausedReason: null, audienceFilter, updatedAt: now };
      if (s.kind === "future") await updateCampaign(deps.db, workspaceId, id, { ...patch, status: "scheduled" });
      else if (s.kind === "missed") await updateCampaign(deps.db, workspaceId, id, { ...patch, status: "paused", pausedReason: "missed_schedule" });
      else await updateCampaign(deps.db, workspaceId, id, { ...patch, status: "running" });
      // the first batch goes with the status change, so its announcement shows the audience (all of it when small)
      const first = await materializeBatch(deps, workspaceId, id);
      await publishProgress(deps, workspaceId, id);
      // the run job writes the rest of the audience now, also for a campaign scheduled later (then waits for its time)
      await wakeRun(deps, workspaceId, id, s.kind === "future" && first.done ? new Date(s.at) : undefined);
    });
  } catch (err) {
    if (prepared) await discardMedia(deps, prepared);
    throw err;
  }
  return campaignOut(deps, await requireCampaign(deps, workspaceId, id));
}

/**
 * POST pause: running or scheduled to paused (`user_request`). The messages already in a
 * session's window stay queued and wait (the sender takes them only while the campaign runs);
 * only an attempt already under way when the pause commits can still reach the network.
 */
export async function pauseByUser(deps: Deps, workspaceId: string, id: string) {
  await deps.db.tx(async () => {
    const c = await requireCampaign(deps, workspaceId, id);
    inStatus(c, ["running", "scheduled"], "pause");
    await pauseCampaign(deps, c, "user_request");
  });
  return campaignOut(deps, await requireCampaign(deps, workspaceId, id));
}

/** POST resume: paused to running (or back to scheduled while its time is still ahead). */
export async function resumeCampaign(deps: Deps, workspaceId: string, id: string) {
  await assertFeature(deps, workspaceId, "campaigns");
  await deps.db.tx(async () => {
    const c = await requireCampaign(deps, workspaceId, id);
    inStatus(c, ["paused"], "resume");
    const now = deps.clock.now().getTime();
    const s = scheduleState(c, now);
    // a campaign paused before its time goes back to waiting for it; a missed one runs now (the user asked)
    const future = s.kind === "future" && c.sent + c.failed === 0;
    await changeStatus(deps, c, { status: future ? "scheduled" : "running", pausedReason: null, recentOutcomes: "" });
    await wakeRun(deps, workspaceId, id, future ? new Date((s as { at: number }).at) : undefined);
    if (!future) await releaseHeld(deps, c);
  });
  return campaignOut(deps, await requireCampaign(deps, workspaceId, id));
}

/** The longest a cancel request skips recipients before it answers (a client's idle time-out is far longer). */
export const CANCEL_ANSWER_MS = 2_000;

/**
 * POST cancel: draft, scheduled, running or paused to cancelled; recipients still waiting
 * become `skipped` (`cancelled`), also those whose queued message had not gone out (it fails):
 * those in the status change's transaction, the rest in batches before the answer (at most
 * CANCEL_ANSWER_MS of them; the campaign's run job skips what is left).
 */
export async function cancelCampaign(deps: Deps, workspaceId: string, id: string) {
  await deps.db.tx(async () => {
    const c = await requireCampaign(deps, workspaceId, id);
    inStatus(c, ["draft", "scheduled", "running", "paused"], "cancel");
    const now = deps.clock.now().getTime();
    await moveCounter(deps, id, "pending", "skipped", await cancelQueued(deps, workspaceId, id, now));
    await changeStatus(deps, c, { status: "cancelled", pausedReason: null, waitingUntil: null, completedAt: now });
    // the campaign's run job skips what the request leaves (a large audience on a slow store)
    await wakeRun(deps, workspaceId, id);
  });
  // the recipients without a message, in batches after the status change: the answer shows them
  // skipped, unless that takes longer than CANCEL_ANSWER_MS (then the run job goes on at once)
  await skipUnsent(deps, workspaceId, id, { untilMs: performance.now() + CANCEL_ANSWER_MS });
  return campaignOut(deps, await requireCampaign(deps, workspaceId, id));
}

/** POST retry-failed: completed or paused with failed recipients; they go back to pending and the campaign runs again. */
export async function retryFailed(deps: Deps, workspaceId: string, id: string) {
  await assertFeature(deps, workspaceId, "campaigns");
  await deps.db.tx(async () => {
    const c = await requireCampaign(deps, workspaceId, id);
    inStatus(c, ["completed", "paused"], "retry the failed recipients of");
    if (c.failed === 0) throw errors.conflict("The campaign has no failed recipients");
    const now = deps.clock.now().getTime();
    // each gets a new message; the failed one stays in the history with its error
    const { changes: n } = await deps.db
      .prepare(
        `UPDATE campaign_recipients SET status = 'pending', message_id = NULL, session_id = NULL, error_code = NULL, error_message = NULL, updated_at = ?
         WHERE campaign_id = ? AND status = 'failed'`,
      )
      .run(now, id);
    await moveCounter(deps, id, "failed", "pending", n);
    await updateCampaign(deps.db, workspaceId, id, { recentOutcomes: "" });
    await changeStatus(deps, c, { status: "running", pausedReason: null, completedAt: null });
    await wakeRun(deps, workspaceId, id);
    await releaseHeld(deps, c);
  });
  return campaignOut(deps, await requireCampaign(deps, workspaceId, id));
}
