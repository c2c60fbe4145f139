import type { DB } from "../../db/store.ts";
import type { PlanLimits } from "./plans.ts";
import { usersSql } from "../users/repo.ts";

export type QuotaResource = Exclude<keyof PlanLimits, "campaigns">;
/** Quotas counted per UTC window in `usage_counters` (docs/team-and-billing.md: calendar month and day). */
export type WindowedResource = "messagesPerMonth" | "apiRequestsPerDay";
/** Quotas counted from the rows that exist (a deleted session frees its slot). */
export type StockResource = Exclude<QuotaResource, WindowedResource>;

export const QUOTA_RESOURCES: readonly QuotaResource[] = ["sessions", "messagesPerMonth", "contacts", "apiRequestsPerDay", "webhooks", "teamSeats"];

/** The UTC window of a windowed quota at a time: `2026-01` (month) or `2026-01-31` (day). */
export function usagePeriod(resource: WindowedResource, at: Date): string {
  const iso = at.toISOString();
  return resource === "messagesPerMonth" ? iso.slice(0, 7) : iso.slice(0, 10);
}

/** When the current window of a windowed quota ends (unix ms). */
export function periodEnd(resource: WindowedResource, at: Date): number {
  return resource === "messagesPerMonth"
    ? Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)
    : Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
}

/** Usage of a windowed quota in its current window (`usage_counters`). */
export async function readCounter(db: DB, workspaceId: string, resource: WindowedResource, at: Date): Promise<number> {
  const row = await db
    .prepare<{ used: number }>("SELECT used FROM usage_counters WHERE workspace_id = ? AND metric = ? AND period = ?")
    .get(workspaceId, resource, usagePeriod(resource, at));
  return row?.used ?? 0;
}

/**
 * Adds `adding` to a windowed counter unless that passes `limit`: one UPSERT, so two callers
 * can never both take the last unit. Returns the new value, or null when over the limit.
 */
export async function incrementCounter(db: DB, workspaceId: string, resource: WindowedResource, at: Date, limit: number, adding = 1): Promise<number | null> {
  if (adding > limit) return null;
  // the table's name on `used`: PostgreSQL finds a bare `used` ambiguous with `excluded.used`
  const row = await db
    .prepare<{ used: number }>(
      `INSERT INTO usage_counters (workspace_id, metric, period, used) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (workspace_id, metric, period) DO UPDATE SET used = usage_counters.used + ?4 WHERE usage_counters.used + ?4 <= ?5
       RETURNING used`,
    )
    .get(workspaceId, resource, usagePeriod(resource, at), adding, limit);
  return row?.used ?? null;
}

/**
 * Gives `units` taken earlier back to a window's counter (units a node took in a block and did
 * not spend); the count after it, or null when the row is gone. Never below zero.
 */
export async function returnToCounter(db: DB, workspaceId: string, resource: WindowedResource, period: string, units: number): Promise<number | null> {
  const row = await db
    .prepare<{ used: number }>(
      `UPDATE usage_counters SET used = CASE WHEN used > ?1 THEN used - ?1 ELSE 0 END
       WHERE workspace_id = ?2 AND metric = ?3 AND period = ?4 RETURNING used`,
    )
    .get(units, workspaceId, resource, period);
  return row?.used ?? null;
}

/**
 * How each stock quota is counted. Tables of other modules may not exist in every build
 * (they count 0 then); a module that renames its table changes its line here.
 */
export const STOCK_COUNTS: Record<StockResource, { table: string; sql: string }> = {
  sessions: { table: "chat_sessions", sql: "SELECT count(*) AS n FROM chat_sessions WHERE workspace_id = ?1" },
  // kept in step with the contacts by triggers: one row, whatever the workspace's size
  contacts: { table: "contact_counts", sql: "SELECT coalesce((SELECT total FROM contact_counts WHERE workspace_id = ?1), 0) AS n" },
  webhooks: { table: "webhooks", sql: "SELECT count(*) AS n FROM webhooks WHERE workspace_id = ?1" },
  // a pending invitation holds its seat so invitations cannot overshoot the plan
  teamSeats: {
    table: "invitations",
    sql: `SELECT ${usersSql.memberCount("?1")}
            + (SELECT count(*) FROM invitations WHERE workspace_id = ?1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?2) AS n`,
  },
};

/** Whether a table exists in the database (in the current schema on PostgreSQL). */
async function hasTable(db: DB, table: string): Promise<boolean> {
  const sql =
    db.engine === "postgres"
      ? "SELECT 1 AS one FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?"
      : "SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = ?";
  return (await db.prepare(sql).get(table)) !== undefined;
}

/** Current count of a stock quota (0 when the module that owns it is not in this build). */
export async function countStock(db: DB, workspaceId: string, resource: StockResource, at: Date): Promise<number> {
  const { table, sql } = STOCK_COUNTS[resource];
  if (!(await hasTable(db, table))) return 0;
  const params: (string | number)[] = sql.includes("?2") ? [workspaceId, at.getTime()] : [workspaceId];
  return (await db.prepare<{ n: number }>(sql).get(...params))!.n;
}

/** Deletes counter windows older than `keepDays` (periodic housekeeping). */
export async function pruneCounters(db: DB, at: Date, keepDays = 400): Promise<number> {
  const cutoff = new Date(at.getTime() - keepDays * 86_400_000).toISOString().slice(0, 10);
  return (await db.prepare("DELETE FROM usage_counters WHERE period < ?").run(cutoff)).changes;
}

/**
 * Outbound messages are counted by the messages module in `message_usage`, in the transaction
 * that accepts the send (its quota check reads the same row); `usage_counters` holds the
 * API-request windows.
 */
const MESSAGE_USAGE = { table: "message_usage", sql: "SELECT outbound AS used FROM message_usage WHERE workspace_id = ? AND period = ?" };

/** What a workspace used of a quota now, from wherever that quota is counted. */
export async function readUsage(db: DB, workspaceId: string, resource: QuotaResource, at: Date): Promise<number> {
  if (resource === "messagesPerMonth") {
    if (!(await hasTable(db, MESSAGE_USAGE.table))) return 0;
    const row = await db.prepare<{ used: number }>(MESSAGE_USAGE.sql).get(workspaceId, usagePeriod(resource, at));
    return row?.used ?? 0;
  }
  if (resource === "apiRequestsPerDay") return readCounter(db, workspaceId, resource, at);
  return countStock(db, workspaceId, resource, at);
}
