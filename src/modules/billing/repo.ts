import { and, count, desc, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/store.ts";
import { workspaces } from "../workspaces/table.ts";
import { effectivePlanIdSql } from "./quota.ts";
import { billingEvents, billingOrders, invoices } from "./table.ts";

/**
 * The `limits` text of the plan in force for workspace `ws` (an SQL expression), or NULL when
 * that plan is not in the table: for a statement that reads the limits together with something
 * else (the API-key guard reads them with the key). Subqueries, not joins: see users/repo.ts.
 */
export function planLimitsInForceSql(ws: string): string {
  return `(SELECT (SELECT p.limits FROM plans p WHERE p.id = ${effectivePlanIdSql("w.subscription_status", "w.plan_id")})
      FROM workspaces w WHERE w.id = ${ws})`;
}

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type OrderRow = typeof billingOrders.$inferSelect;
export type InvoiceRow = typeof invoices.$inferSelect;
export type WorkspacePatch = Partial<Pick<WorkspaceRow, "planId" | "subscriptionStatus" | "billingInterval" | "trialEndsAt" | "currentPeriodEnd" | "billingProvider">>;

/** The workspace row (subscription fields), or undefined. */
export async function findWorkspace(db: DB, workspaceId: string): Promise<WorkspaceRow | undefined> {
  return db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).get();
}

/** Changes the subscription fields of a workspace. */
export async function updateSubscription(db: DB, workspaceId: string, patch: WorkspacePatch, at: number): Promise<void> {
  await db.update(workspaces).set({ ...patch, updatedAt: at }).where(eq(workspaces.id, workspaceId)).run();
}

export async function insertOrder(db: DB, workspaceId: string, row: Omit<OrderRow, "workspaceId">): Promise<void> {
  await db.insert(billingOrders).values({ ...row, workspaceId }).run();
}

/** An order of the workspace by the provider's order id. */
export async function findOrder(db: DB, workspaceId: string, providerOrderId: string): Promise<OrderRow | undefined> {
  return db
    .select()
    .from(billingOrders)
    .where(and(eq(billingOrders.workspaceId, workspaceId), eq(billingOrders.provider, "razorpay"), eq(billingOrders.providerOrderId, providerOrderId)))
    .get();
}

/**
 * An order by the provider's order id alone: for provider webhooks, which are not sent on
 * behalf of a workspace (the order row names it).
 */
export async function findOrderForWebhook(db: DB, providerOrderId: string): Promise<OrderRow | undefined> {
  return db.select().from(billingOrders).where(and(eq(billingOrders.provider, "razorpay"), eq(billingOrders.providerOrderId, providerOrderId))).get();
}

export async function markOrderPaid(db: DB, workspaceId: string, id: string, paymentId: string, at: number): Promise<void> {
  await db.update(billingOrders).set({ status: "paid", paymentId, paidAt: at }).where(and(eq(billingOrders.workspaceId, workspaceId), eq(billingOrders.id, id))).run();
}

export async function findInvoiceByPayment(db: DB, workspaceId: string, provider: "razorpay" | "manual", paymentRef: string): Promise<InvoiceRow | undefined> {
  return db
    .select()
    .from(invoices)
    .where(and(eq(invoices.workspaceId, workspaceId), eq(invoices.provider, provider), eq(invoices.paymentRef, paymentRef)))
    .get();
}

export async function insertInvoice(db: DB, workspaceId: string, row: Omit<InvoiceRow, "workspaceId">): Promise<void> {
  await db.insert(invoices).values({ ...row, workspaceId }).run();
}

export async function listInvoices(db: DB, workspaceId: string, page: number, limit: number): Promise<{ rows: InvoiceRow[]; total: number }> {
  const where = eq(invoices.workspaceId, workspaceId);
  const rows = await db.select().from(invoices).where(where).orderBy(desc(invoices.createdAt), desc(invoices.id)).limit(limit).offset((page - 1) * limit).all();
  return { rows, total: (await db.select({ n: count() }).from(invoices).where(where).get())!.n };
}

/** Records a provider event; false when it was recorded before (a replay). */
export async function recordEvent(db: DB, e: { provider: string; eventId: string; event: string; workspaceId: string | null; at: number }): Promise<boolean> {
  const res = await db
    .insert(billingEvents)
    .values({ provider: e.provider, eventId: e.eventId, event: e.event, workspaceId: e.workspaceId, receivedAt: e.at })
    .onConflictDoNothing()
    .returning({ eventId: billingEvents.eventId })
    .all();
  return res.length > 0;
}

/** Sets the workspace of a recorded event once the handler knows it (for audits). */
export async function setEventWorkspace(db: DB, provider: string, eventId: string, workspaceId: string): Promise<void> {
  await db.update(billingEvents).set({ workspaceId }).where(sql`${billingEvents.provider} = ${provider} AND ${billingEvents.eventId} = ${eventId}`).run();
}
