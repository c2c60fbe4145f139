import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { assertCanSend, assertFeature, effectiveLimits } from "../billing/quota.ts";
import { usageOf } from "../messages/usage-repo.ts";
import { sessionGate } from "../messages/sender.ts";
import { monthOf } from "../messages/service.ts";
import { isMaterialized } from "./audience.ts";
import { dispatchNext, sentOnDay, windowUsed, WINDOW_PER_SESSION } from "./dispatch.ts";
import { dailyCap, nextGapMs, nextUtcMidnight, quietUntil, utcDay, type Pacing } from "./pacing.ts";
import { changeStatus } from "./progress.ts";
import { reconcile } from "./tracking.ts";
import { bringJobForward, findEngineRow, updateCampaign, type EngineRow } from "./repo.ts";
import type { PausedReason } from "./table.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "clock" | "jobs" | "log">;

export const RUN_JOB = "campaigns.run";
/** The longest the run job sleeps without looking again (a safety net; events wake it sooner). */
export const IDLE_RECHECK_MS = 30_000;
/** While every session of the campaign is reconnecting by itself. */
const HELD_RECHECK_MS = 5_000;
/** While a session's window of queued campaign messages is full (its sends also refill it). */
const WINDOW_RECHECK_MS = 1_000;

/** Makes sure the campaign's run job exists and runs no later than `runAt` (default now). Joins the caller's transaction. */
export async function wakeRun(deps: Pick<AppDeps, "jobs" | "db" | "clock">, workspaceId: string, campaignId: string, runAt?: Date): Promise<void> {
  const key = `${RUN_JOB}:${campaignId}`;
  await deps.jobs.enqueue(RUN_JOB, { workspaceId, campaignId }, { dedupeKey: key, runAt });
  // an existing job may sleep until later (quiet hours, a daily cap): bring it forward
  await bringJobForward(deps.db, key, (runAt ?? deps.clock.now()).getTime());
}

/** Auto-pause (or a user's pause) with its reason; announced at once. */
export async function pauseCampaign(deps: Deps, c: Pick<EngineRow, "id" | "workspaceId">, reason: PausedReason): Promise<void> {
  await changeStatus(deps, c, { status: "paused", pausedReason: reason, waitingUntil: null });
}

async function completeIfDone(deps: Deps, c: EngineRow, now: number): Promise<boolean> {
  if (c.status !== "running" || !isMaterialized(c) || c.pending !== 0) return false;
  await changeStatus(deps, c, { status: "completed", completedAt: now, waitingUntil: null });
  return true;
}

async function planAllows(deps: Deps, workspaceId: string): Promise<boolean> {
  try {
    await assertFeature(deps, workspaceId, "campaigns");
    await assertCanSend(deps, workspaceId);
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === "SUBSCRIPTION_INACTIVE") return false;
    throw err;
  }
}

export interface SessionFacts {
  id: string;
  status: string;
  phoneNumber: string | null;
  lastDisconnectReason: string | null;
  firstConnectedAt: number;
  /** a linked session that dropped and reconnects by itself (the sessions module's `restorable` rule) */
  reconnecting: number;
}

/** The campaign's sessions as the engine sees them (also read to say why a campaign waits). */
export async function sessionsOf(deps: Pick<AppDeps, "db">, c: Pick<EngineRow, "workspaceId" | "sessionIds">): Promise<SessionFacts[]> {
  const q = deps.db.prepare<SessionFacts>(
    `SELECT id, status, phone_number AS "phoneNumber", last_disconnect_reason AS "lastDisconnectReason",
            coalesce(first_connected_at, connected_at, created_at) AS "firstConnectedAt",
            CASE WHEN status = 'disconnected' AND last_disconnect_reason = 'connection_lost' AND credentials IS NOT NULL AND phone_number IS NOT NULL
                 THEN 1 ELSE 0 END AS reconnecting
     FROM chat_sessions WHERE workspace_id = ? AND id = ?`,
  );
  const found: SessionFacts[] = [];
  for (const id of c.sessionIds) {
    const s = await q.get(c.workspaceId, id);
    if (s) found.push(s);
  }
  return found;
}

async function hasTodo(deps: Deps, campaignId: string): Promise<boolean> {
  return (await deps.db.prepare("SELECT 1 AS x FROM campaign_recipients WHERE campaign_id = ? AND status = 'pending' AND message_id IS NULL LIMIT 1").get(campaignId)) !== undefined;
}

/**
 * One look at a running campaign, in one transaction (the caller's, else its own): pauses it
 * when it cannot go on (plan, quota, sessions), completes it when nobody is pending, else gives
 * each connected session whose turn it is (pacing gap passed, under its daily cap, room in its
 * window) one recipient. `only` limits this to one session (a refill after that session sent something).
 * Returns when to look again, or null when the campaign needs no more looks (not running).
 */
export async function tick(deps: Deps, workspaceId: string, campaignId: string, only?: string): Promise<number | null> {
  // one look is one transaction: its reads and the dispatches they allow must not interleave
  if (!deps.db.inTx) return deps.db.tx(() => tick(deps, workspaceId, campaignId, only));
  const c = await findEngineRow(deps.db, workspaceId, campaignId);
  if (!c || c.status !== "running") return null;
  const now = deps.clock.now().getTime();
  if (!isMaterialized(c)) return only ? null : now;
  // a refill whose session is still inside its pacing gap: the run job wakes for it then
  if (only && (c.pacingState[only] ?? 0) > now && c.pending > 0) return null;
  if (!(await planAllows(deps, workspaceId))) return await pauseCampaign(deps, c, "plan_inactive"), null;
  if (!(await hasTodo(deps, c.id))) {
    if (await completeIfDone(deps, c, now)) return null;
    // nobody left to give a message: only the recipients whose messages are in flight are pending
    if (!only && c.pending > 0 && (await reconcile(deps, workspaceId, c.id, tick)) > 0) return now;
    return now + IDLE_RECHECK_MS;
  }
  const pacing = c.pacing as unknown as Pacing;
  const quiet = quietUntil(pacing.quietHours, now);
  if (quiet !== null) return await setWaiting(deps, c, quiet), quiet;
  const sessions = await sessionsOf(deps, c);
  const live = sessions.filter((s) => s.status === "connected");
  if (!live.length) {
    // wait only for a session that comes back by itself; one never linked (or being linked, or
    // dropped on an error) would keep the campaign `running` for ever with nothing sent
    if (sessions.some((s) => s.reconnecting && sessionGate(s).kind === "hold")) return await setWaiting(deps, c, null), now + HELD_RECHECK_MS;
    return await pauseCampaign(deps, c, "session_disconnected"), null;
  }
  const limit = (await effectiveLimits(deps, workspaceId)).messagesPerMonth;
  let used = await usageOf(deps.db, workspaceId, monthOf(now));
  if (used >= limit) return await pauseCampaign(deps, c, "quota_exceeded"), null;

  const state = { ...c.pacingState };
  const n = c.sessionIds.length;
  let turn = c.turn;
  let wake = now + IDLE_RECHECK_MS;
  let capWake = Infinity;
  let allCapped = true;
  const day = utcDay(now);
  for (let k = 0; k < n; k++) {
    const index = (c.turn + k) % n;
    const s = live.find((x) => x.id === c.sessionIds[index]);
    if (!s || (only && s.id !== only)) continue;
    if ((await sentOnDay(deps, s.id, day)) >= dailyCap(pacing, s.firstConnectedAt, now)) {
      capWake = Math.min(capWake, nextUtcMidnight(now));
      continue;
    }
    allCapped = false;
    const nextAt = state[s.id] ?? 0;
    if (nextAt > now) {
      wake = Math.min(wake, nextAt);
      continue;
    }
    if ((await windowUsed(deps, workspaceId, s.id)) >= WINDOW_PER_SESSION) {
      wake = Math.min(wake, now + WINDOW_RECHECK_MS);
      continue;
    }
    if (used >= limit) return await pauseCampaign(deps, c, "quota_exceeded"), null;
    const r = await dispatchNext(deps, c, s, now);
    if (r === "empty") break;
    turn = (index + 1) % n;
    if (r === "skipped") {
      wake = now; // only opted-out recipients this turn: go on at once
      continue;
    }
    used++;
    state[s.id] = now + nextGapMs(pacing);
    wake = Math.min(wake, state[s.id]!);
  }
  if (only && allCapped) return null; // a refill of a capped session: the run job owns the waiting
  const waitingUntil = allCapped && capWake !== Infinity ? capWake : null;
  await updateCampaign(deps.db, workspaceId, c.id, { pacingState: state, turn, waitingUntil });
  return waitingUntil ?? wake;
}

async function setWaiting(deps: Deps, c: EngineRow, until: number | null): Promise<void> {
  if (c.waitingUntil !== until) await updateCampaign(deps.db, c.workspaceId, c.id, { waitingUntil: until });
}
