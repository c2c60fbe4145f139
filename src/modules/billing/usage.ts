import type { Database } from "bun:sqlite";
import type { PlanLimits } from "./plans.ts";

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
export function readCounter(sqlite: Database, workspaceId: string, resource: WindowedResource, at: Date): number {
  const row = sqlite
    .query("SELECT used FROM usage_counters WHERE workspace_id = ? AND metric = ? AND period = ?")
    .get(workspaceId, resource, usagePeriod(resource, at)) as { used: number } | null;
  return row?.used ?? 0;
}

/**
 * Adds `adding` to a windowed counter unless that passes `limit`: one UPSERT, so two callers
 * can never both take the last unit. Returns the new value, or null when over the limit.
 */
export function incrementCounter(sqlite: Database, workspaceId: string, resource: WindowedResource, at: Date, limit: number, adding = 1): number | null {
  if (adding > limit) return null;
  const row = sqlite
    .query(
      `INSERT INTO usage_counters (workspace_id, metric, period, used) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (workspace_id, metric, period) DO UPDATE SET used = used + ?4 WHERE used + ?4 <= ?5
       RETURNING used`,
    )
    .get(workspaceId, resource, usagePeriod(resource, at), adding, limit) as { used: number } | null;
  return row?.used ?? null;
}

/**
 * How each stock quota is counted. Tables of other modules may not exist in every build
 * (they count 0 then); a module that renames its table changes its line here.
 */
export const STOCK_COUNTS: Record<StockResource, { table: string; sql: string }> = {
  sessions: { table: "chat_sessions", sql: "SELECT count(*) AS n FROM chat_sessions WHERE workspace_id = ?1" },
  contacts: { table: "contacts", sql: "SELECT count(*) AS n FROM contacts WHERE workspace_id = ?1" },
  webhooks: { table: "webhooks", sql: "SELECT count(*) AS n FROM webhooks WHERE workspace_id = ?1" },
  // a pending invitation holds its seat so invitations cannot overshoot the plan
  teamSeats: {
    table: "invitations",
    sql: `SELECT (SELECT count(*) FROM users WHERE workspace_id = ?1)
            + (SELECT count(*) FROM invitations WHERE workspace_id = ?1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?2) AS n`,
  },
};

/** Current count of a stock quota (0 when the module that owns it is not in this build). */
export function countStock(sqlite: Database, workspaceId: string, resource: StockResource, at: Date): number {
  const { table, sql } = STOCK_COUNTS[resource];
  const exists = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (!exists) return 0;
  const params: (string | number)[] = sql.includes("?2") ? [workspaceId, at.getTime()] : [workspaceId];
  return (sqlite.query(sql).get(...params) as { n: number }).n;
}

/** Deletes counter windows older than `keepDays` (periodic housekeeping). */
export function pruneCounters(sqlite: Database, at: Date, keepDays = 400): number {
  const cutoff = new Date(at.getTime() - keepDays * 86_400_000).toISOString().slice(0, 10);
  return sqlite.query("DELETE FROM usage_counters WHERE period < ?").run(cutoff).changes;
}

/**
 * Outbound messages are counted by the messages module in `message_usage`, in the transaction
 * that accepts the send (its quota check reads the same row); `usage_counters` holds the
 * API-request windows.
 */
const MESSAGE_USAGE = { table: "message_usage", sql: "SELECT outbound AS used FROM message_usage WHERE workspace_id = ? AND period = ?" };

/** What a workspace used of a quota now, from wherever that quota is counted. */
export function readUsage(sqlite: Database, workspaceId: string, resource: QuotaResource, at: Date): number {
  if (resource === "messagesPerMonth") {
    const exists = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MESSAGE_USAGE.table);
    if (!exists) return 0;
    const row = sqlite.query(MESSAGE_USAGE.sql).get(workspaceId, usagePeriod(resource, at)) as { used: number } | null;
    return row?.used ?? 0;
  }
  if (resource === "apiRequestsPerDay") return readCounter(sqlite, workspaceId, resource, at);
  return countStock(sqlite, workspaceId, resource, at);
}
