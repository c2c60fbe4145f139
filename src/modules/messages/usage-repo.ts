import type { DB } from "../../db/open.ts";
import { oncePer } from "../../db/prepared.ts";

// The monthly message quota's counter rows (`message_usage`), read and bumped by every send
// group: raw statements prepared once per store (drizzle's placeholder filling and row mapping
// were most of their cost). The same SQL on both engines.

const stmts = oncePer((db: DB) => ({
  get: db.prepare<{ n: number }>(`SELECT outbound AS n FROM message_usage WHERE workspace_id = ? AND period = ?`),
  add: db.prepare(
    `INSERT INTO message_usage (workspace_id, period, outbound) VALUES (?, ?, ?)
     ON CONFLICT (workspace_id, period) DO UPDATE SET outbound = message_usage.outbound + excluded.outbound`,
  ),
}));

/** Outbound messages accepted in a UTC month (`YYYY-MM`). */
export async function usageOf(db: DB, workspaceId: string, period: string): Promise<number> {
  return (await stmts(db).get.get(workspaceId, period))?.n ?? 0;
}

/** Counts accepted outbound messages against the month's quota. */
export async function addUsage(db: DB, workspaceId: string, period: string, n: number): Promise<void> {
  await stmts(db).add.run(workspaceId, period, n);
}
