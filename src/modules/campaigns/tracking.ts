import type { AppDeps } from "../../deps.ts";
import type { AppEvent } from "../../events/bus.ts";
import { changeStatus, countsMoved, moveCounter } from "./progress.ts";
import { findEngineRow, pushOutcome, runningWithSession } from "./repo.ts";
import { countCampaignSend } from "./send-metric.ts";
import type { RecipientStatus } from "./table.ts";
import { eventCampaign } from "../messages/events.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "clock" | "jobs" | "log">;

/**
 * The engine's look at a campaign (engine.ts `tick`), handed in by the caller: the engine
 * reconciles through this file, so this file does not import it back.
 */
export type Look = (deps: Deps, workspaceId: string, campaignId: string, only?: string) => Promise<number | null>;

/** Auto-pause when at least this many of the latest FAILURE_WINDOW sends failed (20 % of 50, docs/contacts-and-campaigns.md). */
export const FAILURE_WINDOW = 50;
export const FAILURE_LIMIT = 10;

/** Which recipient statuses a message event moves forward from, and to. */
const MOVES: Record<string, { to: RecipientStatus; from: RecipientStatus[] }> = {
  message_sent: { to: "sent", from: ["pending"] },
  message_delivered: { to: "delivered", from: ["pending", "sent"] },
  message_read: { to: "read", from: ["pending", "sent", "delivered"] },
  message_failed: { to: "failed", from: ["pending"] },
};

export interface RecipientRef {
  id: string;
  campaignId: string;
  status: RecipientStatus;
  sessionId: string;
}

/**
 * Runs in the publisher's transaction (EventBus.onPublish): a campaign message's events move
 * its recipient (never backwards, so a repeated event changes nothing) and the counters in the
 * same commit; a send frees a place in the session's window, refilled at once when pacing allows.
 * A session that ended makes its running campaigns look again (they pause if none is left).
 */
export async function trackEvent(deps: Deps, e: AppEvent, tick: Look, recipient?: RecipientRef): Promise<void> {
  const move = MOVES[e.event];
  if (move) return onMessage(deps, e, move, tick, recipient);
  if (e.event === "session_disconnected" && typeof e.data.sessionId === "string") {
    for (const id of await runningWithSession(deps.db, e.workspaceId, e.data.sessionId)) await tick(deps, e.workspaceId, id);
  }
}

/**
 * Whether an event may concern a campaign, read before the bookkeeping's savepoint (most
 * messages are no campaign's): a message event's recipient row, `null` when the message is no
 * campaign's, `undefined` for other events. A publisher that read the message's row says
 * whether it has a campaign (messages/events.ts `eventCampaign`): a message of none then costs
 * no read (a campaign's message always carries its campaign: dispatch.ts).
 */
export async function eventRecipient(deps: Pick<Deps, "db">, e: AppEvent): Promise<RecipientRef | null | undefined> {
  if (!MOVES[e.event]) return undefined;
  const messageId = e.data.messageId;
  if (typeof messageId !== "string") return null;
  if (eventCampaign(e.data) === null) return null;
  const r = await deps.db
    .prepare<RecipientRef>('SELECT id, campaign_id AS "campaignId", status, session_id AS "sessionId" FROM campaign_recipients WHERE message_id = ?')
    .get(messageId);
  return r ?? null;
}

async function onMessage(deps: Deps, e: AppEvent, move: { to: RecipientStatus; from: RecipientStatus[] }, tick: Look, known?: RecipientRef): Promise<void> {
  const r = known ?? (await eventRecipient(deps, e));
  if (!r || !move.from.includes(r.status)) return;
  const now = deps.clock.now().getTime();
  const error = move.to === "failed" ? (e.data.error as { code?: string; message?: string } | undefined) : undefined;
  // the sender found the number is not on the network (the check ahead did not know yet): a skip, not a failure
  const absent = error?.code === "not_on_network";
  const to: RecipientStatus = absent ? "skipped" : move.to;
  // a failure or a skip keeps sent_at as it was (coalesce with null); any other move sets it once
  const changed = await deps.db
    .prepare(
      `UPDATE campaign_recipients SET status = ?, sent_at = coalesce(sent_at, ?), error_code = ?, error_message = ?, skipped_reason = ?, updated_at = ?
       WHERE id = ? AND status = ?`,
    )
    .run(
      to,
      to === "failed" || to === "skipped" ? null : now,
      absent ? null : (error?.code ?? null),
      absent ? null : (error?.message ?? null),
      absent ? "not_on_network" : null,
      now,
      r.id,
      r.status,
    );
  if (changed.changes !== 1) return;
  await moveCounter(deps, r.campaignId, r.status, to);
  // handed to the network (or given up on) once: a receipt that overtook `sent` counts as sent
  if (r.status === "pending") countCampaignSend(deps.db, to === "failed" ? "failed" : to === "skipped" ? "skipped" : "sent");
  const outcome = to === "failed" ? "f" : to === "skipped" ? "k" : r.status === "pending" ? "s" : "";
  // a skip is neither: it does not count towards the failure rate
  if (outcome === "f" || outcome === "s") await pushOutcome(deps.db, r.campaignId, outcome, FAILURE_WINDOW);
  const c = await findEngineRow(deps.db, e.workspaceId, r.campaignId);
  if (!c) return;
  if (c.status === "running" && outcome === "f" && [...c.recentOutcomes].filter((x) => x === "f").length >= FAILURE_LIMIT) {
    return changeStatus(deps, c, { status: "paused", pausedReason: "failure_rate", waitingUntil: null }); // the engine's pauseCampaign: this file does not import the engine
  }
  if (c.status === "running" && outcome) {
    // completes the campaign when this was the last one, else refills this session's window
    await tick(deps, e.workspaceId, c.id, r.sessionId);
  }
  const after = await deps.db.prepare<{ status: string }>("SELECT status FROM campaigns WHERE id = ?").get(c.id);
  // a status change was announced with these counts already
  if (after?.status === c.status) await countsMoved(deps, e.workspaceId, c.id);
}

const EVENT_OF: Record<string, string> = { sent: "message_sent", delivered: "message_delivered", read: "message_read", failed: "message_failed" };

/**
 * Catches up recipients whose message moved on without them (bookkeeping that failed and was
 * rolled back to its savepoint): the run job calls it when nobody is left to dispatch but some
 * are still pending. At most 100 a call; returns how many moved.
 */
export async function reconcile(deps: Deps, workspaceId: string, campaignId: string, tick: Look): Promise<number> {
  const rows = await deps.db
    .prepare<{ messageId: string; status: string; code: string | null; message: string | null }>(
      `SELECT m.id AS "messageId", m.status, m.error_code AS code, m.error_message AS message FROM campaign_recipients r
       JOIN messages m ON m.workspace_id = ? AND m.id = r.message_id
       WHERE r.campaign_id = ? AND r.status = 'pending' AND r.message_id IS NOT NULL AND m.status <> 'queued' LIMIT 100`,
    )
    .all(workspaceId, campaignId);
  for (const m of rows) {
    const event = EVENT_OF[m.status];
    if (!event) continue;
    const data = { messageId: m.messageId, error: { code: m.code ?? "send_failed", message: m.message ?? "" } };
    await onMessage(deps, { id: "", workspaceId, event: event as AppEvent["event"], timestamp: "", data }, MOVES[event]!, tick);
  }
  return rows.length;
}
