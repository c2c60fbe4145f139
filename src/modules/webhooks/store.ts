import type { DB, Statement } from "../../db/store.ts";

/** A delivery claimed for one attempt, with what is needed to send it. */
export interface ClaimedDelivery {
  /**
   * SQLite: the row's rowid: an outcome finds its row by it (one B-tree probe, not the id index and
   * then the row), still fenced by id and attempt number. Only a VACUUM renumbers rowids and Parley
   * runs none on its live database (backups use VACUUM INTO): a missed row would only be a stale
   * claim. PostgreSQL has no rowid: 0, and outcomes find the row by id.
   */
  rowid: number;
  id: string;
  workspaceId: string;
  webhookId: string;
  eventType: string;
  payload: string;
  isTest: boolean;
  status: "pending" | "retrying" | "success" | "failed";
  /** the number of this attempt (already counted) */
  attempts: number;
  url: string;
  secretEnc: string;
}

/** A claim as the statement returns it: is_test as 0/1, url and secret NULL when the webhook is gone. */
type ClaimRow = Omit<ClaimedDelivery, "url" | "secretEnc" | "isTest"> & { url: string | null; secretEnc: string | null; isTest: boolean | number };

// the webhook's URL and secret come back with the claim: one statement instead of a second one
// (NULL when the webhook was deleted meanwhile: its deliveries go with it). Two lookups of the same
// row, each its own column, cost the statement no more than one json_array, and the row is then
// the claim as it is (no JSON.parse and no object copy per claim).
const target = (col: string) => `(SELECT w.${col} FROM webhooks w WHERE w.id = webhook_id AND w.workspace_id = webhook_deliveries.workspace_id)`;
const RETURNING = `rowid AS rowid, id, workspace_id AS workspaceId, webhook_id AS webhookId, event_type AS eventType, payload, is_test AS isTest, status, attempts,
  ${target("url")} AS url, ${target("secret_enc")} AS secretEnc`;

/** The webhooks that have open deliveries, one index seek each (a recursive walk of the per-webhook index: a skip scan). */
const OPEN_WEBHOOKS = `hooks(id) AS (
    SELECT (SELECT min(webhook_id) FROM webhook_deliveries INDEXED BY webhook_deliveries_webhook_due_idx WHERE status IN ('pending', 'retrying'))
    UNION ALL
    SELECT (SELECT min(webhook_id) FROM webhook_deliveries INDEXED BY webhook_deliveries_webhook_due_idx WHERE status IN ('pending', 'retrying') AND webhook_id > h.id)
    FROM hooks h WHERE h.id IS NOT NULL)`;

/** Later than any due time (unix ms). */
const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * The due time of the `?2`-th entry of the due order (deliveries due by `?1`, or all with a due time
 * when `?1` is NULL), read from the index; none when there are fewer.
 */
const NTH_DUE = `SELECT x.next_attempt_at AS t FROM webhook_deliveries x INDEXED BY webhook_deliveries_due_idx
  WHERE x.status IN ('pending', 'retrying') AND x.next_attempt_at <= coalesce(?1, ${NEVER})
  ORDER BY x.next_attempt_at LIMIT 1 OFFSET ?2 - 1`;

/**
 * How many entries of the due order a claim reads before it looks webhook by webhook instead.
 * The entries in the way are rows in flight (at most the concurrency) and rows of webhooks at their
 * cap: the window holds the first kind with room to spare, so only a backlog of the second sends a
 * claim webhook by webhook.
 */
export const dueWindow = (concurrency: number) => Math.max(64, 2 * concurrency);

/**
 * How far a claim reads the due order at one moment: before `before` (the due time of the
 * window's last entry); `full` when the window is full, so that finding nothing there means
 * looking webhook by webhook. Claims do not move deliveries in the due order (see claimDue), so
 * the claims of one moment share one bound.
 */
export interface DueBound {
  before: number;
  full: boolean;
}

/**
 * The same statements for PostgreSQL: no INDEXED BY (its planner picks the partial indexes), ids
 * in place of rowids, JSON arrays of ids through jsonb. A claim's row is also locked and skipped
 * by a concurrent claim (another node's): `FOR UPDATE SKIP LOCKED` in the claims' inner selects.
 */
function forPostgres(sql: string): string {
  return sql
    .replace(/\s+INDEXED BY \w+/g, "")
    .replace(/rowid AS rowid/g, '0 AS "rowid"')
    .replace(/\b(\w+\.)?rowid\b(?!")/g, "$1id")
    .replace(/json_each\((\?\d)\) (\w+)/g, "jsonb_array_elements_text($1::jsonb) AS $2(value)")
    .replace(/json_each\((\?\d)\)/g, "jsonb_array_elements_text($1::jsonb) AS j(value)")
    .replace(/ORDER BY d\.next_attempt_at LIMIT 1\)(\s+RETURNING)/g, "ORDER BY d.next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)$1");
}

/**
 * The dispatcher's prepared statements. These run for the whole server, across workspaces
 * (like the job queue); every change to one delivery names its workspace too.
 */
export class DeliveryStore {
  private s: Record<"claimDue" | "nthDue" | "claimDueByWebhook" | "claimNextOfEach" | "claimNextNOfEach" | "claimOne" | "nextDue" | "nextDueByWebhook" | "release" | "unclaim" | "park" | "unpark" | "prune" | "failInterruptedTests", Statement<any>>;

  constructor(db: DB) {
    const pg = db.engine === "postgres";
    const prepare = (sql: string) => db.prepare(pg ? forPostgres(sql) : sql);
    this.s = {
      // The first due delivery of an active webhook not at its in-flight cap, due before ?4 (an
      // index range: see claimDue). A claim sets only the lease (not status or
      // next_attempt_at): the due-order index entries stay as they are, so a claim rewrites the row
      // alone; claims skip leased rows, and a worker that dies leaves its row due again when the
      // lease runs out.
      claimDue: prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE id = (SELECT d.id FROM webhook_deliveries d INDEXED BY webhook_deliveries_due_idx
                     WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at < ?4
                       AND d.webhook_id NOT IN (SELECT value FROM json_each(?3))
                       AND (d.lease_until IS NULL OR d.lease_until <= ?2)
                       AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active = 1)
                     ORDER BY d.next_attempt_at LIMIT 1)
           AND (lease_until IS NULL OR lease_until <= ?2)
         RETURNING ${RETURNING}`,
      ),
      nthDue: prepare(NTH_DUE),
      // The same claim webhook by webhook: each webhook with open deliveries (walked through the
      // per-webhook index, one probe a webhook, however long its backlog), its first unleased due
      // delivery, the earliest of those. For when the window of the due order is all leased rows
      // and webhooks at their cap: a backlog of one slow receiver is not read on every claim.
      claimDueByWebhook: prepare(
        `WITH RECURSIVE ${OPEN_WEBHOOKS},
         firsts(rid, t) AS (
           SELECT d.rowid, d.next_attempt_at FROM hooks h JOIN webhook_deliveries d ON d.rowid = (
             SELECT x.rowid FROM webhook_deliveries x INDEXED BY webhook_deliveries_webhook_due_idx
             WHERE x.webhook_id = h.id AND x.status IN ('pending', 'retrying') AND x.next_attempt_at <= ?2
               AND (x.lease_until IS NULL OR x.lease_until <= ?2)
             ORDER BY x.next_attempt_at LIMIT 1)
           WHERE h.id IS NOT NULL AND h.id NOT IN (SELECT value FROM json_each(?3))
             AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = h.id AND w.is_active = 1))
         UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE rowid = (SELECT rid FROM firsts ORDER BY t LIMIT 1) AND (lease_until IS NULL OR lease_until <= ?2)
         RETURNING ${RETURNING}`,
      ),
      // the next due delivery of EACH listed webhook (ids as a JSON array, each once) in one statement:
      // one index probe per webhook, not one statement per webhook. A webhook listed again in the
      // next statement of the same transaction gets its next delivery (the first is leased now).
      claimNextOfEach: prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE rowid IN (
           SELECT (SELECT d.rowid FROM webhook_deliveries d INDEXED BY webhook_deliveries_webhook_due_idx
                   WHERE d.webhook_id = j.value AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= ?2
                     AND (d.lease_until IS NULL OR d.lease_until <= ?2)
                   ORDER BY d.next_attempt_at LIMIT 1)
           FROM json_each(?3) j
           WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.id = j.value AND w.is_active = 1))
           AND (lease_until IS NULL OR lease_until <= ?2)
         RETURNING ${RETURNING}`,
      ),
      // PostgreSQL: the next ?3[i].n due deliveries of each listed webhook (a JSON array of
      // {id, n}, each webhook once) in one statement, where SQLite lists a webhook again in one
      // statement per round (claimNextOfEach): one round trip for a batch of freed slots. A row
      // another claim holds is skipped, not waited for: claims run without the write lock
      // (dispatcher.ts), and two that waited for each other's rows would deadlock
      claimNextNOfEach: pg
        ? db.prepare(
            `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
             WHERE id IN (
               SELECT c.id FROM jsonb_to_recordset(?3::jsonb) AS j(id text, n int)
               CROSS JOIN LATERAL (SELECT d.id FROM webhook_deliveries d
                 WHERE d.webhook_id = j.id AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= ?2
                   AND (d.lease_until IS NULL OR d.lease_until <= ?2)
                 ORDER BY d.next_attempt_at LIMIT j.n FOR UPDATE OF d SKIP LOCKED) c
               WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.id = j.id AND w.is_active = 1))
               AND (lease_until IS NULL OR lease_until <= ?2)
             RETURNING ${forPostgres(RETURNING)}`,
          )
        : db.prepare("SELECT 1 WHERE 0"),
      claimOne: prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE id = ?3 AND workspace_id = ?4 AND webhook_id = ?5 AND (lease_until IS NULL OR lease_until <= ?2)
         RETURNING ${RETURNING}`,
      ),
      // the next time anything unleased of an active webhook not at its cap is due, if before ?3;
      // then webhook by webhook, as for claims
      nextDue: prepare(
        `SELECT d.next_attempt_at AS t FROM webhook_deliveries d INDEXED BY webhook_deliveries_due_idx
         WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at < ?3
           AND d.webhook_id NOT IN (SELECT value FROM json_each(?1))
           AND (d.lease_until IS NULL OR d.lease_until <= ?2)
           AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active = 1)
         ORDER BY d.next_attempt_at LIMIT 1`,
      ),
      nextDueByWebhook: prepare(
        `WITH RECURSIVE ${OPEN_WEBHOOKS}
         SELECT min((SELECT x.next_attempt_at FROM webhook_deliveries x INDEXED BY webhook_deliveries_webhook_due_idx
                     WHERE x.webhook_id = h.id AND x.status IN ('pending', 'retrying') AND x.next_attempt_at IS NOT NULL
                       AND (x.lease_until IS NULL OR x.lease_until <= ?2)
                     ORDER BY x.next_attempt_at LIMIT 1)) AS t
         FROM hooks h
         WHERE h.id IS NOT NULL AND h.id NOT IN (SELECT value FROM json_each(?1))
           AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = h.id AND w.is_active = 1)`,
      ),
      release: prepare(
        `UPDATE webhook_deliveries SET lease_until = NULL,
           next_attempt_at = CASE WHEN status IN ('pending', 'retrying') THEN ?3 ELSE next_attempt_at END
         WHERE id = ?1 AND attempts = ?2`,
      ),
      // a claim never sent: the lease and the attempt it counted go back (fenced by that attempt)
      unclaim: prepare(`UPDATE webhook_deliveries SET lease_until = NULL, attempts = attempts - 1 WHERE id = ?1 AND attempts = ?2 AND lease_until IS NOT NULL`),
      // a switched-off webhook's open deliveries wait without a due time; switched on, they are due at once
      park: prepare(
        `UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND workspace_id = ? AND status IN ('pending', 'retrying') AND lease_until IS NULL`,
      ),
      unpark: prepare(
        `UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND workspace_id = ? AND status IN ('pending', 'retrying') AND next_attempt_at IS NULL`,
      ),
      // finished deliveries only: open ones (e.g. parked on a switched-off webhook) wait to be sent
      prune: prepare(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE created_at < ?1 AND status IN ('success', 'failed') AND (lease_until IS NULL OR lease_until <= ?2) LIMIT ?3)`,
      ),
      // a test attempt is made by the request that asked for it, never by the dispatcher: one whose
      // lease ran out without an outcome was cut short (the process died) and will never finish
      failInterruptedTests: prepare(
        `UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL, next_attempt_at = NULL,
           error = 'interrupted: the server stopped during the attempt', updated_at = ?1
         WHERE is_test = 1 AND status = 'pending' AND next_attempt_at IS NULL AND (lease_until IS NULL OR lease_until <= ?1)`,
      ),
    };
  }

  private withTarget(row: ClaimRow | null): ClaimedDelivery | null {
    if (row?.url == null) return null; // deleted meanwhile (both columns are NOT NULL): its deliveries go with it
    row.isTest = !!row.isTest;
    return row as ClaimedDelivery;
  }

  /** The bound of the claims made at `now` (see DueBound). */
  async dueBound(now: number, window = dueWindow(0)): Promise<DueBound> {
    const nth = (await this.s.nthDue.get(now, window)) as { t: number } | undefined;
    // fewer due than the window: all of them (due means at most now)
    return nth ? { before: nth.t, full: true } : { before: now + 1, full: false };
  }

  /**
   * Claims the most overdue delivery whose webhook is not in `busy`; counts the attempt. Reads the
   * due order only before `bound` (an index range of fewer entries than the window; ties at the
   * bound are left out, however many); when nothing there qualifies and the window is full,
   * webhook by webhook: a backlog of a webhook at its cap (one slow receiver's) is not read on
   * every claim.
   */
  async claimDue(now: number, leaseMs: number, busy: string[], bound?: DueBound): Promise<ClaimedDelivery | null> {
    bound ??= await this.dueBound(now);
    const ids = JSON.stringify(busy);
    const row = ((await this.s.claimDue.get(now + leaseMs, now, ids, bound.before)) as ClaimRow | undefined) ?? null;
    if (row || !bound.full) return this.withTarget(row);
    return this.withTarget(((await this.s.claimDueByWebhook.get(now + leaseMs, now, ids)) as ClaimRow | undefined) ?? null);
  }

  /** Claims the most overdue delivery of each of `webhookIds` (distinct) in one statement; counts their attempts. */
  async claimNextOfEach(webhookIds: string[], now: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.withTargets((await this.s.claimNextOfEach.all(now + leaseMs, now, JSON.stringify(webhookIds))) as ClaimRow[]);
  }

  /**
   * PostgreSQL: claims up to `n` of the most overdue deliveries of each webhook listed (distinct
   * ids) in one statement; counts their attempts. Each webhook's claims come in its due order.
   */
  async claimNextNOfEach(wanted: { id: string; n: number }[], now: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.withTargets((await this.s.claimNextNOfEach.all(now + leaseMs, now, JSON.stringify(wanted))) as ClaimRow[]);
  }

  /** The claimed rows with their webhooks' targets (a row whose target is gone is left out, as withTarget does). */
  private withTargets(rows: ClaimRow[]): ClaimedDelivery[] {
    const out: ClaimedDelivery[] = [];
    for (const r of rows) {
      const d = this.withTarget(r);
      if (d) out.push(d);
    }
    return out;
  }

  /** Claims one given delivery for a manual attempt; null when missing or in flight. */
  async claimOne(workspaceId: string, webhookId: string, id: string, now: number, leaseMs: number): Promise<ClaimedDelivery | null> {
    return this.withTarget(((await this.s.claimOne.get(now + leaseMs, now, id, workspaceId, webhookId)) as ClaimRow | undefined) ?? null);
  }

  /** When the dispatcher should look again (unix ms), or null when nothing unleased is waiting (leases: see claimDue; the window as there). */
  async nextDue(busy: string[], now: number, window = dueWindow(0)): Promise<number | null> {
    const ids = JSON.stringify(busy);
    const nth = (await this.s.nthDue.get(null, window)) as { t: number } | undefined;
    const row = (await this.s.nextDue.get(ids, now, nth?.t ?? NEVER)) as { t: number } | undefined;
    if (row || !nth) return row?.t ?? null;
    return ((await this.s.nextDueByWebhook.get(ids, now)) as { t: number | null } | undefined)?.t ?? null;
  }

  /** Hands a claimed delivery back (shutdown), due at once; the attempt stays counted: it may have reached the receiver. */
  async release(id: string, attempts: number, now: number): Promise<void> {
    await this.s.release.run(id, attempts, now);
  }

  /** Hands back a claim that was never sent: not leased, its attempt not counted. */
  async unclaim(id: string, attempts: number): Promise<void> {
    await this.s.unclaim.run(id, attempts);
  }

  /** Takes a switched-off webhook's open deliveries out of the due order (they are kept). */
  async park(workspaceId: string, webhookId: string): Promise<void> {
    await this.s.park.run(webhookId, workspaceId);
  }

  /** Makes a switched-on webhook's waiting deliveries due now. */
  async unpark(workspaceId: string, webhookId: string, now: number): Promise<void> {
    await this.s.unpark.run(now, webhookId, workspaceId);
  }

  /** Deletes up to `batch` finished (success, failed) deliveries created before `cutoff` (never one in flight); returns how many. */
  async prune(cutoff: number, now: number, batch = 5000): Promise<number> {
    return (await this.s.prune.run(cutoff, now, batch)).changes;
  }

  /** Fails test deliveries whose attempt was cut short (lease over, no outcome); returns how many. */
  async failInterruptedTests(now: number): Promise<number> {
    return (await this.s.failInterruptedTests.run(now)).changes;
  }
}
