import { and, asc, count, desc, eq, gt, lt, sql, type SQL } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { chatSessions } from "../sessions/table.ts";
import { webhookDeliveries, webhooks, type DeliveryStatus } from "./table.ts";

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Whether the workspace has at least one connected session (creation requires one). */
export async function hasConnectedSession(db: DB, workspaceId: string): Promise<boolean> {
  const row = await db
    .select({ id: chatSessions.id })
    .from(chatSessions)
    .where(and(eq(chatSessions.workspaceId, workspaceId), eq(chatSessions.status, "connected")))
    .limit(1)
    .get();
  return !!row;
}

/** All webhooks of a workspace, oldest first. */
export async function listWebhooks(db: DB, workspaceId: string): Promise<WebhookRow[]> {
  return db.select().from(webhooks).where(eq(webhooks.workspaceId, workspaceId)).orderBy(asc(webhooks.id)).all();
}

export async function countWebhooks(db: DB, workspaceId: string): Promise<number> {
  return (await db.select({ n: count() }).from(webhooks).where(eq(webhooks.workspaceId, workspaceId)).get())?.n ?? 0;
}

/** One webhook of the workspace, or null (also for another workspace's id). */
export async function getWebhook(db: DB, workspaceId: string, id: string): Promise<WebhookRow | null> {
  return (await db.select().from(webhooks).where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.id, id))).get()) ?? null;
}

export async function insertWebhook(db: DB, workspaceId: string, row: Omit<typeof webhooks.$inferInsert, "workspaceId">): Promise<void> {
  await db.insert(webhooks).values({ ...row, workspaceId }).run();
}

/** Applies a change; returns false when the webhook is not in the workspace. */
export async function updateWebhook(db: DB, workspaceId: string, id: string, change: Partial<typeof webhooks.$inferInsert>): Promise<boolean> {
  const r = await db
    .update(webhooks)
    .set(change)
    .where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.id, id)))
    .returning({ id: webhooks.id })
    .all();
  return r.length > 0;
}

export async function deleteWebhook(db: DB, workspaceId: string, id: string): Promise<boolean> {
  return (await db.delete(webhooks).where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.id, id))).returning({ id: webhooks.id }).all()).length > 0;
}

export interface HistoryFilter {
  status?: DeliveryStatus;
  event?: string;
  page: number;
  limit: number;
}

function historyWhere(workspaceId: string, webhookId: string, f: { status?: DeliveryStatus; event?: string }): SQL[] {
  const where: SQL[] = [eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.webhookId, webhookId)];
  if (f.status) where.push(eq(webhookDeliveries.status, f.status));
  if (f.event) where.push(eq(webhookDeliveries.eventType, f.event));
  return where;
}

/** A numbered page of a webhook's deliveries, newest first, with the total. */
export async function listDeliveries(db: DB, workspaceId: string, webhookId: string, f: HistoryFilter): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = historyWhere(workspaceId, webhookId, f);
  const total = (await db.select({ n: count() }).from(webhookDeliveries).where(and(...where)).get())?.n ?? 0;
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(...where))
    .orderBy(desc(webhookDeliveries.id))
    .limit(f.limit)
    .offset((f.page - 1) * f.limit)
    .all();
  return { rows, total };
}

/**
 * A keyset page (one cursor): newest first below `before`, or the oldest `limit` above `after`
 * (returned newest first). Reads `limit + 1` rows to know whether more exist; no total.
 */
export async function pageDeliveries(
  db: DB,
  workspaceId: string,
  webhookId: string,
  f: Omit<HistoryFilter, "page"> & { before?: string; after?: string },
): Promise<{ rows: DeliveryRow[]; hasMore: boolean }> {
  const where = historyWhere(workspaceId, webhookId, f);
  if (f.before) where.push(lt(webhookDeliveries.id, f.before));
  if (f.after) where.push(gt(webhookDeliveries.id, f.after));
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(...where))
    .orderBy(f.after ? asc(webhookDeliveries.id) : desc(webhookDeliveries.id))
    .limit(f.limit + 1)
    .all();
  const hasMore = rows.length > f.limit;
  if (hasMore) rows.pop();
  if (f.after) rows.reverse();
  return { rows, hasMore };
}

export async function getDelivery(db: DB, workspaceId: string, webhookId: string, id: string): Promise<DeliveryRow | null> {
  return (
    (await db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, id)))
      .get()) ?? null
  );
}

/** Inserts a delivery; returns its rowid on SQLite (an outcome finds its row by it), 0 on PostgreSQL (by its id). */
export async function insertDelivery(db: DB, workspaceId: string, row: Omit<typeof webhookDeliveries.$inferInsert, "workspaceId">): Promise<number> {
  const rowid = db.engine === "postgres" ? sql<number>`0` : sql<number>`rowid`;
  return (await db.insert(webhookDeliveries).values({ ...row, workspaceId }).returning({ rowid }).get())!.rowid;
}
