import type { AppDeps } from "../../deps.ts";
import type { AppEvent } from "../../events/bus.ts";
import { pauseCampaign, tick } from "./engine.ts";
import { countsMoved, moveCounter } from "./progress.ts";
import { findEngineRow, runningWithSession } from "./repo.ts";
import { countCampaignSend } from "./send-metric.ts";
import type { RecipientStatus } from "./table.ts";

type Deps = Pick<AppDeps, "db" | "sqlite" | "bus" | "clock" | "jobs" | "log">;

/** Auto-pause when at least this many of the latest FAILURE_WINDOW sends failed (20 % of 50, D11). */
export const FAILURE_WINDOW = 50;
export const FAILURE_LIMIT = 10;

/** Which recipient statuses a message event moves forward from, and to. */
const MOVES: Record<string, { to: RecipientStatus; from: RecipientStatus[] }> = {
  message_sent: { to: "sent", from: ["pending"] },
  message_delivered: { to: "delivered", from: ["pending", "sent"] },
  message_read: { to: "read", from: ["pending", "sent", "delivered"] },
  message_failed: { to: "failed", from: ["pending"] },
};

interface RecipientRef {
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
export function trackEvent(deps: Deps, e: AppEvent): void {
  const move = MOVES[e.event];
  if (move) return onMessage(deps, e, move);
  if (e.event === "session_disconnected" && typeof e.data.sessionId === "string") {
    for (const id of runningWithSession(deps.db, e.workspaceId, e.data.sessionId)) tick(deps, e.workspaceId, id);
  }
}

function onMessage(deps: Deps, e: AppEvent, move: { to: RecipientStatus; from: RecipientStatus[] }): void {
  const messageId = e.data.messageId;
  if (typeof messageId !== "string") return;
  const r = deps.sqlite
    .query("SELECT id, campaign_id AS campaignId, status, session_id AS sessionId FROM campaign_recipients WHERE message_id = ?")
    .get(messageId) as RecipientRef | null;
  if (!r || !move.from.includes(r.status)) return;
  const now = deps.clock.now().getTime();
  const error = move.to === "failed" ? (e.data.error as { code?: string; message?: string } | undefined) : undefined;
  const changed = deps.sqlite
    .query(
      `UPDATE campaign_recipients SET status = ?1, sent_at = CASE WHEN ?1 <> 'failed' THEN coalesce(sent_at, ?2) ELSE sent_at END,
         error_code = ?3, error_message = ?4, updated_at = ?2
       WHERE id = ?5 AND status = ?6`,
    )
    .run(move.to, now, error?.code ?? null, error?.message ?? null, r.id, r.status);
  if (changed.changes !== 1) return;
  moveCounter(deps, r.campaignId, r.status, move.to);
  // handed to the network (or given up on) once: a receipt that overtook `sent` counts as sent
  if (r.status === "pending") countCampaignSend(deps.sqlite, r.id, move.to === "failed" ? "failed" : "sent");
  const outcome = move.to === "failed" ? "f" : r.status === "pending" ? "s" : "";
  if (outcome) deps.sqlite.query("UPDATE campaigns SET recent_outcomes = substr(recent_outcomes || ?, -?) WHERE id = ?").run(outcome, FAILURE_WINDOW, r.campaignId);
  const c = findEngineRow(deps.db, e.workspaceId, r.campaignId);
  if (!c) return;
  if (c.status === "running" && outcome === "f" && [...c.recentOutcomes].filter((x) => x === "f").length >= FAILURE_LIMIT) {
    return pauseCampaign(deps, c, "failure_rate");
  }
  if (c.status === "running" && outcome) {
    // completes the campaign when this was the last one, else refills this session's window
    tick(deps, e.workspaceId, c.id, r.sessionId);
  }
  const after = deps.sqlite.query("SELECT status FROM campaigns WHERE id = ?").get(c.id) as { status: string } | null;
  // a status change was announced with these counts already
  if (after?.status === c.status) countsMoved(deps, e.workspaceId, c.id);
}

const EVENT_OF: Record<string, string> = { sent: "message_sent", delivered: "message_delivered", read: "message_read", failed: "message_failed" };

/**
 * Catches up recipients whose message moved on without them (bookkeeping that failed and was
 * rolled back to its savepoint): the run job calls it when nobody is left to dispatch but some
 * are still pending. At most 100 a call; returns how many moved.
 */
export function reconcile(deps: Deps, workspaceId: string, campaignId: string): number {
  const rows = deps.sqlite
    .query(
      `SELECT m.id AS messageId, m.status, m.error_code AS code, m.error_message AS message FROM campaign_recipients r
       JOIN messages m ON m.workspace_id = ?1 AND m.id = r.message_id
       WHERE r.campaign_id = ?2 AND r.status = 'pending' AND r.message_id IS NOT NULL AND m.status <> 'queued' LIMIT 100`,
    )
    .all(workspaceId, campaignId) as { messageId: string; status: string; code: string | null; message: string | null }[];
  for (const m of rows) {
    const event = EVENT_OF[m.status];
    if (!event) continue;
    const data = { messageId: m.messageId, error: { code: m.code ?? "send_failed", message: m.message ?? "" } };
    onMessage(deps, { id: "", workspaceId, event: event as AppEvent["event"], timestamp: "", data }, MOVES[event]!);
  }
  return rows.length;
}
