import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { messageUsage } from "./table.ts";

// The monthly message quota's counter rows (`message_usage`), read and bumped by every send.

const usageStmt = preparedOnce((db) =>
  db
    .select({ n: messageUsage.outbound })
    .from(messageUsage)
    .where(and(eq(messageUsage.workspaceId, sql.placeholder("ws")), eq(messageUsage.period, sql.placeholder("period"))))
    .prepare(),
);

/** Outbound messages accepted in a UTC month (`YYYY-MM`). */
export async function usageOf(db: DB, workspaceId: string, period: string): Promise<number> {
  return (await usageStmt(db).get({ ws: workspaceId, period }))?.n ?? 0;
}

const addUsageStmt = preparedOnce((db) =>
  db
    .insert(messageUsage)
    .values({ workspaceId: sql.placeholder("ws") as unknown as string, period: sql.placeholder("period") as unknown as string, outbound: sql.placeholder("n") as unknown as number })
    .onConflictDoUpdate({ target: [messageUsage.workspaceId, messageUsage.period], set: { outbound: sql`${messageUsage.outbound} + excluded.outbound` } })
    .prepare(),
);

/** Counts accepted outbound messages against the month's quota. */
export async function addUsage(db: DB, workspaceId: string, period: string, n: number): Promise<void> {
  await addUsageStmt(db).run({ ws: workspaceId, period, n });
}
