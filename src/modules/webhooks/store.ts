import type { Database } from "bun:sqlite";

/** A delivery claimed for one attempt, with what is needed to send it. */
export interface ClaimedDelivery {
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

const RETURNING = `id, workspace_id AS workspaceId, webhook_id AS webhookId, event_type AS eventType, payload, is_test AS isTest, status, attempts`;

/**
 * The dispatcher's prepared statements. These run for the whole server, across workspaces
 * (like the job queue); every change to one delivery names its workspace too.
 */
export class DeliveryStore {
  private s;

  constructor(private sqlite: Database) {
    this.s = {
      // due, not leased, of an active webhook that is not already at its in-flight cap
      claimDue: sqlite.prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE id = (SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                     WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= ?2
                       AND (d.lease_until IS NULL OR d.lease_until <= ?2) AND w.is_active = 1
                       AND d.webhook_id NOT IN (SELECT value FROM json_each(?3))
                     ORDER BY d.next_attempt_at LIMIT 1)
         RETURNING ${RETURNING}`,
      ),
      claimOne: sqlite.prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2
         WHERE id = ?3 AND workspace_id = ?4 AND webhook_id = ?5 AND (lease_until IS NULL OR lease_until <= ?2)
         RETURNING ${RETURNING}`,
      ),
      target: sqlite.prepare(`SELECT url, secret_enc AS secretEnc FROM webhooks WHERE id = ? AND workspace_id = ?`),
      nextDue: sqlite.prepare(
        `SELECT min(max(d.next_attempt_at, coalesce(d.lease_until, 0))) AS t FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status IN ('pending', 'retrying') AND w.is_active = 1 AND d.webhook_id NOT IN (SELECT value FROM json_each(?))`,
      ),
      release: sqlite.prepare(`UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ? AND attempts = ?`),
      prune: sqlite.prepare(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE created_at < ?1 AND (lease_until IS NULL OR lease_until <= ?2) LIMIT ?3)`,
      ),
    };
  }

  private withTarget(row: Omit<ClaimedDelivery, "url" | "secretEnc"> | null): ClaimedDelivery | null {
    if (!row) return null;
    const t = this.s.target.get(row.webhookId, row.workspaceId) as { url: string; secretEnc: string } | null;
    if (!t) return null; // deleted meanwhile: its deliveries go with it
    return { ...row, isTest: !!row.isTest, ...t };
  }

  /** Claims the most overdue delivery whose webhook is not in `busy`; counts the attempt. */
  claimDue(now: number, leaseMs: number, busy: string[]): ClaimedDelivery | null {
    return this.withTarget(this.s.claimDue.get(now + leaseMs, now, JSON.stringify(busy)) as Omit<ClaimedDelivery, "url" | "secretEnc"> | null);
  }

  /** Claims one given delivery for a manual attempt; null when missing or in flight. */
  claimOne(workspaceId: string, webhookId: string, id: string, now: number, leaseMs: number): ClaimedDelivery | null {
    return this.withTarget(this.s.claimOne.get(now + leaseMs, now, id, workspaceId, webhookId) as Omit<ClaimedDelivery, "url" | "secretEnc"> | null);
  }

  /** When the dispatcher should look again (unix ms), or null when nothing is waiting. */
  nextDue(busy: string[]): number | null {
    return (this.s.nextDue.get(JSON.stringify(busy)) as { t: number | null } | null)?.t ?? null;
  }

  /** Hands a claimed delivery back (shutdown); the attempt stays counted: it may have reached the receiver. */
  release(id: string, attempts: number): void {
    this.s.release.run(id, attempts);
  }

  /** Deletes up to `batch` deliveries created before `cutoff` (never one in flight); returns how many. */
  prune(cutoff: number, now: number, batch = 5000): number {
    return this.s.prune.run(cutoff, now, batch).changes;
  }
}

const stores = new WeakMap<Database, DeliveryStore>();
/** The store of a database, prepared once. */
export function deliveryStore(sqlite: Database): DeliveryStore {
  let s = stores.get(sqlite);
  if (!s) stores.set(sqlite, (s = new DeliveryStore(sqlite)));
  return s;
}
