import { anyOf, anyOfArg } from "../../db/any-of.ts";
import { oncePer } from "../../db/prepared.ts";
import type { DB } from "../../db/store.ts";
import { observeWebhookAttempt } from "../metrics/counters.ts";
import type { AppDeps } from "../../deps.ts";
import type { ClaimedDelivery } from "./store.ts";
import type { DeliveryStatus, DisabledReason } from "./table.ts";

const DAY = 86_400_000;
/** Failing without a single success this long deactivates a webhook (docs/webhooks.md). */
export const FAILING_DEACTIVATE_MS = 5 * DAY;
/** A receiver's Retry-After is honoured up to this. */
export const RETRY_AFTER_CAP_MS = 12 * 3_600_000;
export const DISABLED_NOTICE_JOB = "webhooks.disabled-notice";

export interface AttemptOutcome {
  ok: boolean;
  /** the receiver answered 410 Gone */
  gone: boolean;
  /** null when no HTTP answer came (time-out, refused, network) */
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  retryAfterSeconds: number | null;
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  /** set when this attempt switched the webhook off */
  deactivated: DisabledReason | null;
}

/**
 * The longest a webhook that keeps failing can go between two failed attempts: the longest
 * step of the retry schedule (with its jitter) or a honoured Retry-After, plus an attempt's
 * lease and an hour of margin for a busy dispatcher. A failure after a longer quiet gap is a
 * new failing streak, not the continuation of an old one.
 */
export function failingStreakGapMs(config: Pick<AppDeps["config"], "webhookRetrySchedule" | "webhookTimeoutMs">): number {
  const longestStep = Math.max(0, ...config.webhookRetrySchedule) * 1000 * 1.1;
  return Math.ceil(Math.max(longestStep, RETRY_AFTER_CAP_MS) + config.webhookTimeoutMs + 5_000 + 3_600_000);
}

/** Delay before the attempt after `attemptsDone` failed ones: the schedule's entry, ±10% jitter, Retry-After honoured (capped). */
export function retryDelayMs(schedule: readonly number[], attemptsDone: number, retryAfterSeconds: number | null, random = Math.random): number {
  const base = (schedule[Math.min(attemptsDone, schedule.length - 1)] ?? 0) * 1000;
  const jittered = Math.round(base * (0.9 + random() * 0.2));
  if (retryAfterSeconds === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterSeconds * 1000, RETRY_AFTER_CAP_MS));
}

function nextStatus(deps: AppDeps, d: ClaimedDelivery, o: Pick<AttemptOutcome, "ok" | "gone" | "retryAfterSeconds">, manual: boolean, now: number) {
  const schedule = deps.config.webhookRetrySchedule;
  if (o.ok) return { status: "success" as const, next: null };
  // a test, a receiver that is gone, a manual re-send of a finished delivery, or the schedule is spent
  if (d.isTest || o.gone || (manual && (d.status === "failed" || d.status === "success")) || d.attempts >= schedule.length) {
    return { status: "failed" as const, next: null };
  }
  return { status: "retrying" as const, next: now + retryDelayMs(schedule, d.attempts, o.retryAfterSeconds) };
}

/** One finished attempt waiting to be recorded. */
export interface FinishedAttempt {
  d: ClaimedDelivery;
  o: Omit<AttemptOutcome, "status" | "nextAttemptAt" | "deactivated">;
  opts: { manual: boolean; at: number };
}

/**
 * Stores the outcome of one attempt, fenced by the attempt number (a worker whose claim was
 * taken over cannot overwrite the newer attempt), and updates the webhook's health in the
 * same transaction: success resets it; 410 or 5 failing days deactivate it and queue a mail.
 */
export async function recordAttempt(
  deps: AppDeps,
  d: ClaimedDelivery,
  o: Omit<AttemptOutcome, "status" | "nextAttemptAt" | "deactivated">,
  opts: { manual: boolean; at: number },
): Promise<AttemptOutcome> {
  return (await recordAttempts(deps, [{ d, o, opts }]))[0]!;
}

/**
 * Stores the outcomes of several attempts in ONE transaction (group commit), each fenced by
 * its own attempt number and applied in order, exactly as one `recordAttempt` each would.
 * All or none: when it throws, nothing was recorded (the leases run out, the deliveries are sent
 * again); called inside a transaction, it is the caller's, which the throw must roll back.
 */
export async function recordAttempts(deps: AppDeps, batch: FinishedAttempt[]): Promise<AttemptOutcome[]> {
  const apply = async () => {
    // a webhook's successes in one batch reset its health once, with the latest time; a failure
    // after them sees that reset first: the same end state as one write per success
    const healthy = new Map<string, HealthyMark>();
    // one prepared UPDATE per outcome: cheaper than one UPDATE … FROM json_each for the batch
    // (measured: no JSON to build and take apart, no join to plan), and no special case
    const outcomes: AttemptOutcome[] = [];
    // PostgreSQL, every attempt a success: the outcomes go out together, without waiting for each
    // answer in turn (a success writes nothing else; they still run in order on the connection)
    const sent = deps.db.engine === "postgres" && batch.every((a) => a.o.ok) ? batch.map((a) => startOutcome(deps, a.d, a.o, a.opts)) : undefined;
    for (let i = 0; i < batch.length; i++) {
      const a = batch[i]!;
      outcomes.push(await applyAttempt(deps, a.d, a.o, a.opts, healthy, sent?.[i]));
    }
    await markAllHealthy(deps, healthy);
    return outcomes;
  };
  // inside the caller's transaction (the dispatcher's group commit) a throw rolls all of it back:
  // no savepoint (two more statements per batch) is needed for all-or-none
  const out = deps.db.inTx ? await apply() : await deps.db.tx(apply);
  for (let i = 0; i < out.length; i++) {
    const { d } = batch[i]!;
    observeWebhookAttempt(out[i]!.status, out[i]!.durationMs);
    if (out[i]!.deactivated) deps.log.warn("webhook deactivated", { workspaceId: d.workspaceId, webhookId: d.webhookId, reason: out[i]!.deactivated });
  }
  return out;
}

interface HealthyMark {
  workspaceId: string;
  at: number;
}

type Statements = ReturnType<typeof prepare>;

function prepare(db: DB) {
  const pg = db.engine === "postgres";
  return {
    markHealthy: db.prepare(`UPDATE webhooks SET failing_since = NULL, last_failure_at = NULL, last_success_at = ? WHERE id = ? AND workspace_id = ?`),
    // SQLite finds the row by its rowid (see ClaimedDelivery.rowid); PostgreSQL by its id (the 0 is ignored)
    outcome: db.prepare(
      `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, lease_until = NULL, response_status = ?, response_body = ?,
         error = ?, duration_ms = ?, last_attempt_at = ?, delivered_at = CASE WHEN ? = 1 THEN ? ELSE delivered_at END, updated_at = ?
       WHERE ${pg ? "? = 0" : "rowid = ?"} AND id = ? AND workspace_id = ? AND attempts = ?`,
    ),
    failing: db.prepare<{ failingSince: number; isActive: number }>(
      `UPDATE webhooks SET
         failing_since = CASE WHEN failing_since IS NULL OR last_failure_at IS NULL OR last_failure_at < ?2 THEN ?1 ELSE failing_since END,
         last_failure_at = ${pg ? "greatest" : "max"}(coalesce(last_failure_at, 0), ?1)
       WHERE id = ?3 AND workspace_id = ?4 RETURNING failing_since AS "failingSince", is_active AS "isActive"`,
    ),
    deactivate: db.prepare(`UPDATE webhooks SET is_active = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND workspace_id = ?`),
    // PostgreSQL: see lockWebhooksFirst
    lockHooks: db.prepare(
      pg ? `SELECT id FROM webhooks WHERE id ${anyOf(db)} ORDER BY id FOR NO KEY UPDATE` : `SELECT 1 WHERE 0 AND ? IS NULL`,
    ),
  };
}

/**
 * PostgreSQL, for a batch of outcomes recorded without the store's write lock (dispatcher.ts):
 * locks the batch's webhooks' rows (in id order) before any of its deliveries' rows, the order
 * in which a change to a webhook (its deletion with its deliveries, a switch off) takes them, so
 * the two never wait for each other's rows. Sent without waiting for its answer: the
 * connection runs it before the batch's outcomes.
 */
export function lockWebhooksFirst(deps: AppDeps, webhookIds: string[]): Promise<unknown> {
  const p = statements(deps.db).lockHooks.all(anyOfArg(deps.db, [...new Set(webhookIds)]));
  p.catch(() => {}); // awaited by the caller; a failure fails the batch there
  return p;
}

/** The per-outcome statements, prepared once per database. */
const statements: (db: DB) => Statements = oncePer(prepare);

async function markHealthy(deps: AppDeps, webhookId: string, m: HealthyMark): Promise<void> {
  await statements(deps.db).markHealthy.run(m.at, webhookId, m.workspaceId);
}

/**
 * The batch's health marks, one per webhook, each by its prepared statement: cheaper than one
 * UPDATE … FROM json_each for several (measured), as for the outcomes.
 */
async function markAllHealthy(deps: AppDeps, healthy: Map<string, HealthyMark>): Promise<void> {
  for (const [webhookId, m] of healthy) await markHealthy(deps, webhookId, m);
}

type Attempt = Omit<AttemptOutcome, "status" | "nextAttemptAt" | "deactivated">;
type Started = { status: DeliveryStatus; next: number | null; now: number; updated: Promise<{ changes: number }> };

/** The outcome's UPDATE, sent (fenced by the attempt number); its answer is awaited by applyAttempt. */
function startOutcome(deps: AppDeps, d: ClaimedDelivery, o: Attempt, opts: { manual: boolean; at: number }): Started {
  const now = deps.clock.now().getTime();
  const { status, next } = nextStatus(deps, d, o, opts.manual, now);
  const updated = statements(deps.db).outcome.run(status, next, o.responseStatus, o.responseBody, o.error, o.durationMs, opts.at, o.ok ? 1 : 0, now, now, d.rowid, d.id, d.workspaceId, d.attempts);
  updated.catch(() => {}); // awaited in turn; one that fails fails the batch there
  return { status, next, now, updated };
}

/** The statements of one outcome (its UPDATE sent before, or now); the caller holds the transaction and writes the `healthy` marks. */
async function applyAttempt(
  deps: AppDeps,
  d: ClaimedDelivery,
  o: Attempt,
  opts: { manual: boolean; at: number },
  healthy: Map<string, HealthyMark>,
  sent?: Started,
): Promise<AttemptOutcome> {
  const { status, next, now, updated: pending } = sent ?? startOutcome(deps, d, o, opts);
  const updated = await pending;
  // stale claim, or a test: the webhook's health is untouched
  const deactivated = updated.changes === 0 || d.isTest ? null : await applyHealth(deps, d, o, opts.at, now, healthy);
  return { ...o, status, nextAttemptAt: next, deactivated };
}

/** Counts the outcome in its webhook's health; returns why the webhook was switched off, if it was. */
async function applyHealth(
  deps: AppDeps,
  d: ClaimedDelivery,
  o: Pick<AttemptOutcome, "ok" | "gone">,
  at: number,
  now: number,
  healthy: Map<string, HealthyMark>,
): Promise<DisabledReason | null> {
  if (o.ok) {
    healthy.set(d.webhookId, { workspaceId: d.workspaceId, at: now });
    return null;
  }
  const mark = healthy.get(d.webhookId);
  if (mark) {
    await markHealthy(deps, d.webhookId, mark);
    healthy.delete(d.webhookId);
  }
  // "failing for 5 days" means without a break: a streak older than the longest retry gap is over
  const streakFrom = at - failingStreakGapMs(deps.config);
  const hook = await statements(deps.db).failing.get(at, streakFrom, d.webhookId, d.workspaceId);
  if (!hook?.isActive) return null;
  const reason: DisabledReason | null = o.gone ? "gone" : now - hook.failingSince >= FAILING_DEACTIVATE_MS ? "failing" : null;
  if (!reason) return null;
  await statements(deps.db).deactivate.run(reason, now, d.webhookId, d.workspaceId);
  await deps.deliveries.park(d.workspaceId, d.webhookId);
  await deps.jobs.enqueue(DISABLED_NOTICE_JOB, { workspaceId: d.workspaceId, webhookId: d.webhookId, reason });
  return reason;
}
