// What pause, resume and cancel do with the messages a campaign already put in its sessions'
// queues (at most WINDOW_PER_SESSION each). The sender does not take the queued messages of a
// paused campaign (messages/repo.ts nextQueued), so pausing holds them.
import type { AppDeps } from "../../deps.ts";
import { publishFailed } from "../messages/events.ts";
import { enqueueSender } from "../messages/sender.ts";
import { giveWay, sliceBudget, sliceDone } from "../../yield.ts";
import { countsMoved, moveCounter } from "./progress.ts";
import { findCampaign } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "jobs">;

/** The message error of a queued campaign message whose campaign was cancelled before it went out. */
export const CANCELLED_ERROR = { code: "cancelled", message: "The campaign was cancelled before this message was sent" };

/** Resume: the sessions' senders look again, so the messages held while paused go out now. */
export async function releaseHeld(deps: Deps, c: { workspaceId: string; sessionIds: string[] }): Promise<void> {
  for (const sessionId of c.sessionIds) await enqueueSender(deps, c.workspaceId, sessionId);
}

/**
 * Cancel, in the caller's transaction: every recipient whose message is queued but has not begun
 * its first attempt becomes skipped (`cancelled`), and those messages fail (`cancelled`, with
 * message_failed: they are ordinary messages); at most a window per session. A message whose
 * attempt is under way (a sending token) is left to finish; its recipient moves with its outcome.
 * The recipients that have no message yet are skipped after the commit by `skipUnsent`.
 * Returns how many recipients were skipped.
 */
export async function cancelQueued(deps: Deps, workspaceId: string, campaignId: string, at: number): Promise<number> {
  // binds the workspace, then the campaign
  const unsent = `SELECT id FROM messages WHERE workspace_id = ? AND campaign_id = ? AND status = 'queued' AND sending_token IS NULL`;
  const { changes: skipped } = await deps.db
    .prepare(
      `UPDATE campaign_recipients SET status = 'skipped', skipped_reason = 'cancelled', updated_at = ?
       WHERE campaign_id = ? AND status = 'pending' AND message_id IN (${unsent})`,
    )
    .run(at, campaignId, workspaceId, campaignId);
  const failed = await deps.db
    .prepare<{ id: string; workspaceId: string; sessionId: string; phone: string }>(
      `UPDATE messages SET status = 'failed', error_code = ?, error_message = ?, failed_at = ?, updated_at = ?
       WHERE id IN (${unsent}) RETURNING id, workspace_id AS "workspaceId", session_id AS "sessionId", phone`,
    )
    .all(CANCELLED_ERROR.code, CANCELLED_ERROR.message, at, at, workspaceId, campaignId);
  // the recipients are skipped already: the campaign's tracking of message_failed moves nothing
  for (const m of failed) await publishFailed(deps, m, CANCELLED_ERROR);
  return skipped;
}

/** Recipients a cancelled campaign skips per transaction at most. */
export const SKIP_BATCH = 500;
/** Recipients one statement skips: a transaction runs these until SKIP_BATCH or its slice of time is spent. */
export const SKIP_STEP = 100;

/**
 * A cancelled campaign's recipients that never got a message become skipped (`cancelled`), at
 * most SKIP_BATCH per transaction (fewer on SQLite when its slice of time is spent first), with
 * the counters that move with them, giving the event loop a turn between transactions, so
 * cancelling 100,000 recipients never holds it long. Safe to run again and beside another run
 * (each statement skips only rows still pending); the campaigns sweep runs it for a cancelled
 * campaign a crash left half skipped. With `untilMs` it stops after the transaction that
 * passes that time (the cancel request answers then). Returns how many it skipped.
 */
export async function skipUnsent(deps: Pick<AppDeps, "db" | "bus" | "clock" | "jobs">, workspaceId: string, campaignId: string, opts: { untilMs?: number } = {}): Promise<number> {
  const skip = deps.db.prepare(
    `UPDATE campaign_recipients SET status = 'skipped', skipped_reason = 'cancelled', updated_at = ?
     WHERE id IN (SELECT id FROM campaign_recipients WHERE campaign_id = ? AND status = 'pending' AND message_id IS NULL ORDER BY id LIMIT ?)`,
  );
  let total = 0;
  for (;;) {
    const { n, more } = await deps.db.tx(async () => {
      const c = await findCampaign(deps.db, workspaceId, campaignId);
      if (c?.status !== "cancelled") return { n: 0, more: false };
      const budget = sliceBudget(deps.db.engine, { atLeast: SKIP_STEP });
      let done = 0;
      let more = true;
      while (more && done < SKIP_BATCH && !budget.spent(done)) {
        const { changes } = await skip.run(deps.clock.now().getTime(), campaignId, SKIP_STEP);
        done += changes;
        more = changes === SKIP_STEP;
      }
      await moveCounter(deps, campaignId, "pending", "skipped", done);
      if (done) await countsMoved(deps, workspaceId, campaignId);
      sliceDone("campaigns.cancel", done);
      return { n: done, more };
    });
    total += n;
    // `untilMs` (performance.now()): the caller answers then; the campaign's run job skips the rest
    if (!more || (opts.untilMs !== undefined && performance.now() >= opts.untilMs)) return total;
    await giveWay();
  }
}
