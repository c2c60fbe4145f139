import { and, asc, count, desc, eq, gt, lt, type SQL } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { chatSessions } from "../sessions/table.ts";
import { users } from "../users/table.ts";
import { webhookDeliveries, webhooks, type DeliveryStatus } from "./table.ts";

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Whether the workspace has at least one connected session (creation requires one). */
export function hasConnectedSession(db: DB, workspaceId: string): boolean {
  const row = db
    .select({ id: chatSessions.id })
    .from(chatSessions)
    .where(and(eq(chatSessions.workspaceId, workspaceId), eq(chatSessions.status, "connected")))
    .limit(1)
    .get();
  return !!row;
}

/** All webhooks of a workspace, oldest first. */
export function listWebhooks(db: DB, workspaceId: string): WebhookRow[] {
  return db.select().from(webhooks).where(eq(webhooks.workspaceId, workspaceId)).orderBy(asc(webhooks.id)).all();
}

export function countWebhooks(db: DB, workspaceId: string): number {
  return db.select({ n: count() }).from(webhooks).where(eq(webhooks.workspaceId, workspaceId)).get()?.n ?? 0;
}

/** One webhook of the workspace, or null (also for another workspace's id). */
export function getWebhook(db: DB, workspaceId: string, id: string): WebhookRow | null {
  return db.select().from(webhooks).where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.id, id))).get() ?? null;
}

export function insertWebhook(db: DB, workspaceId: string, row: Omit<typeof webhooks.$inferInsert, "workspaceId">): void {
  db.insert(webhooks).values({ ...row, workspaceId }).run();
}

/** Applies a change; returns false when the webhook is not in the workspace. */
export function updateWebhook(db: DB, workspaceId: string, id: string, change: Partial<typeof webhooks.$inferInsert>): boolean {
  const r = db
    .update(webhooks)
    .set(change)
    .where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.id, id)))
    .returning({ id: webhooks.id })
    .all();
  return r.length > 0;
}

export function deleteWebhook(db: DB, workspaceId: string, id: string): boolean {
  return db.delete(webhooks).where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.id, id))).returning({ id: webhooks.id }).all().length > 0;
}

/** Mail addresses of the workspace owners (for deactivation notices). */
export function ownerEmails(db: DB, workspaceId: string): string[] {
  return db
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), eq(users.role, "owner")))
    .all()
    .map((r) => r.email);
}

export interface HistoryFilter {
  status?: DeliveryStatus;
  event?: string;
  before?: string;
  after?: string;
  page: number;
  limit: number;
}

/** A page of a webhook's deliveries, newest first; keyset cursors when given, else page/limit. */
export function listDeliveries(db: DB, workspaceId: string, webhookId: string, f: HistoryFilter): { rows: DeliveryRow[]; total: number } {
  const base: SQL[] = [eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.webhookId, webhookId)];
  if (f.status) base.push(eq(webhookDeliveries.status, f.status));
  if (f.event) base.push(eq(webhookDeliveries.eventType, f.event));
  const total = db.select({ n: count() }).from(webhookDeliveries).where(and(...base)).get()?.n ?? 0;
  const where = [...base];
  if (f.before) where.push(lt(webhookDeliveries.id, f.before));
  if (f.after) where.push(gt(webhookDeliveries.id, f.after));
  const q = db.select().from(webhookDeliveries).where(and(...where)).limit(f.limit);
  let rows: DeliveryRow[];
  if (f.after && !f.before) rows = q.orderBy(asc(webhookDeliveries.id)).all().reverse(); // the page right after the cursor
  else if (f.before || f.after) rows = q.orderBy(desc(webhookDeliveries.id)).all();
  else rows = q.orderBy(desc(webhookDeliveries.id)).offset((f.page - 1) * f.limit).all();
  return { rows, total };
}

export function getDelivery(db: DB, workspaceId: string, webhookId: string, id: string): DeliveryRow | null {
  return (
    db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, id)))
      .get() ?? null
  );
}

export function insertDelivery(db: DB, workspaceId: string, row: Omit<typeof webhookDeliveries.$inferInsert, "workspaceId">): void {
  db.insert(webhookDeliveries).values({ ...row, workspaceId }).run();
}
