import type { DB } from "../../db/store.ts";

// The workspace's contact counts (`contact_counts`, kept by triggers on `contacts`; docs/no-stalls.md).

const COUNTS = 'SELECT total, opted_out AS "optedOut" FROM contact_counts WHERE workspace_id = ?';

/**
 * How many contacts the workspace has, and how many of them opted out: one row that triggers on
 * `contacts` keep in step inside each writing transaction, so it is exact and costs the same at
 * any workspace size.
 */
export async function contactCounts(db: DB, workspaceId: string): Promise<{ total: number; optedOut: number }> {
  const r = await db.prepare<{ total: number; optedOut: number }>(COUNTS).get(workspaceId);
  return { total: Number(r?.total ?? 0), optedOut: Number(r?.optedOut ?? 0) };
}

/** How many contacts the workspace has (the `contacts` quota). */
export async function contactCount(db: DB, workspaceId: string): Promise<number> {
  return (await contactCounts(db, workspaceId)).total;
}
