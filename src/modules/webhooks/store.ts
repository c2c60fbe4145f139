import type { Database } from "bun:sqlite";

/** A delivery claimed for one attempt, with what is needed to send it. */
export interface ClaimedDelivery {
  /**
   * the row's rowid: an outcome finds its row by it (one B-tree probe, not the id index and then
   * the row), still fenced by id and attempt number. Only a VACUUM renumbers rowids and Parley runs
   * none on its live database (backups use VACUUM INTO): a missed row would only be a stale claim.
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

/**
 * The dispatcher's prepared statements. These run for the whole server, across workspaces
 * (like the job queue); every change to one delivery names its workspace too.
 */
export class DeliveryStore {
  private s;

  constructor(sqlite: Database) {
    this.s = {
      // The first due delivery of an active webhook not at its in-flight cap. A claim sets only the
      // lease (not status or next_attempt_at): the due-order index entries stay as they are, so a
      // claim rewrites the row alone; claims skip leased rows, and a worker that dies leaves its
      // row due again when the lease runs out.
      claimDue: sqlite.prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE id = (SELECT d.id FROM webhook_deliveries d INDEXED BY webhook_deliveries_due_idx
                     WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= ?2
                       AND d.webhook_id NOT IN (SELECT value FROM json_each(?3))
                       AND (d.lease_until IS NULL OR d.lease_until <= ?2)
                       AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active = 1)
                     ORDER BY d.next_attempt_at LIMIT 1)
         RETURNING ${RETURNING}`,
      ),
      // the next due delivery of EACH listed webhook (ids as a JSON array, each once) in one statement:
      // one index probe per webhook, not one statement per webhook. A webhook listed again in the
      // next statement of the same transaction gets its next delivery (the first is leased now).
      claimNextOfEach: sqlite.prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE rowid IN (
           SELECT (SELECT d.rowid FROM webhook_deliveries d INDEXED BY webhook_deliveries_webhook_due_idx
                   WHERE d.webhook_id = j.value AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= ?2
                     AND (d.lease_until IS NULL OR d.lease_until <= ?2)
                   ORDER BY d.next_attempt_at LIMIT 1)
           FROM json_each(?3) j
           WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.id = j.value AND w.is_active = 1))
         RETURNING ${RETURNING}`,
      ),
      claimOne: sqlite.prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE id = ?3 AND workspace_id = ?4 AND webhook_id = ?5 AND (lease_until IS NULL OR lease_until <= ?2)
         RETURNING ${RETURNING}`,
      ),
      nextDue: sqlite.prepare(
        `SELECT d.next_attempt_at AS t FROM webhook_deliveries d INDEXED BY webhook_deliveries_due_idx
         WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at IS NOT NULL
           AND d.webhook_id NOT IN (SELECT value FROM json_each(?1))
           AND (d.lease_until IS NULL OR d.lease_until <= ?2)
           AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active = 1)
         ORDER BY d.next_attempt_at LIMIT 1`,
      ),
      release: sqlite.prepare(
        `UPDATE webhook_deliveries SET lease_until = NULL,
           next_attempt_at = CASE WHEN status IN ('pending', 'retrying') THEN ?3 ELSE next_attempt_at END
         WHERE id = ?1 AND attempts = ?2`,
      ),
      // a switched-off webhook's open deliveries wait without a due time; switched on, they are due at once
      park: sqlite.prepare(
        `UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND workspace_id = ? AND status IN ('pending', 'retrying') AND lease_until IS NULL`,
      ),
      unpark: sqlite.prepare(
        `UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND workspace_id = ? AND status IN ('pending', 'retrying') AND next_attempt_at IS NULL`,
      ),
      // finished deliveries only: open ones (e.g. parked on a switched-off webhook) wait to be sent
      prune: sqlite.prepare(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE created_at < ?1 AND status IN ('success', 'failed') AND (lease_until IS NULL OR lease_until <= ?2) LIMIT ?3)`,
      ),
      // a test attempt is made by the request that asked for it, never by the dispatcher: one whose
      // lease ran out without an outcome was cut short (the process died) and will never finish
      failInterruptedTests: sqlite.prepare(
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

  /** Claims the most overdue delivery whose webhook is not in `busy`; counts the attempt. */
  claimDue(now: number, leaseMs: number, busy: string[]): ClaimedDelivery | null {
    return this.withTarget(this.s.claimDue.get(now + leaseMs, now, JSON.stringify(busy)) as ClaimRow | null);
  }

  /** Claims the most overdue delivery of each of `webhookIds` (distinct) in one statement; counts their attempts. */
  claimNextOfEach(webhookIds: string[], now: number, leaseMs: number): ClaimedDelivery[] {
    const rows = this.s.claimNextOfEach.all(now + leaseMs, now, JSON.stringify(webhookIds)) as ClaimRow[];
    const out: ClaimedDelivery[] = [];
    for (const r of rows) {
      const d = this.withTarget(r);
      if (d) out.push(d);
    }
    return out;
  }

  /** Claims one given delivery for a manual attempt; null when missing or in flight. */
  claimOne(workspaceId: string, webhookId: string, id: string, now: number, leaseMs: number): ClaimedDelivery | null {
    return this.withTarget(this.s.claimOne.get(now + leaseMs, now, id, workspaceId, webhookId) as ClaimRow | null);
  }

  /** When the dispatcher should look again (unix ms), or null when nothing unleased is waiting (leases: see claimDue). */
  nextDue(busy: string[], now: number): number | null {
    return (this.s.nextDue.get(JSON.stringify(busy), now) as { t: number | null } | null)?.t ?? null;
  }

  /** Hands a claimed delivery back (shutdown), due at once; the attempt stays counted: it may have reached the receiver. */
  release(id: string, attempts: number, now: number): void {
    this.s.release.run(id, attempts, now);
  }

  /** Takes a switched-off webhook's open deliveries out of the due order (they are kept). */
  park(workspaceId: string, webhookId: string): void {
    this.s.park.run(webhookId, workspaceId);
  }

  /** Makes a switched-on webhook's waiting deliveries due now. */
  unpark(workspaceId: string, webhookId: string, now: number): void {
    this.s.unpark.run(now, webhookId, workspaceId);
  }

  /** Deletes up to `batch` finished (success, failed) deliveries created before `cutoff` (never one in flight); returns how many. */
  prune(cutoff: number, now: number, batch = 5000): number {
    return this.s.prune.run(cutoff, now, batch).changes;
  }

  /** Fails test deliveries whose attempt was cut short (lease over, no outcome); returns how many. */
  failInterruptedTests(now: number): number {
    return this.s.failInterruptedTests.run(now).changes;
  }
}

const stores = new WeakMap<Database, DeliveryStore>();
/** The store of a database, prepared once. */
export function deliveryStore(sqlite: Database): DeliveryStore {
  let s = stores.get(sqlite);
  if (!s) stores.set(sqlite, (s = new DeliveryStore(sqlite)));
  return s;
}
