import { index, integer, primaryKey, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/**
 * The plan catalogue (docs/team-and-billing.md), seeded from DEFAULT_PLANS at start and changed by the operator
 * with `parley plan update`. Amounts are paise; `limits` is PlanLimits as JSON.
 */
export const plans = sqliteTable("plans", () => ({
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  currency: text("currency").notNull().default("INR"),
  monthlyPaise: integer("monthly_paise").notNull(),
  annualPaise: integer("annual_paise").notNull(),
  limits: text("limits").notNull(),
  /** offered at checkout and listed by GET /api/billing/plans */
  active: integer("active", { mode: "boolean" }).notNull().default(true),
  sortOrder: integer("sort_order").notNull().default(0),
  updatedAt: integer("updated_at").notNull(),
}));

/** A checkout: one payment-provider order for a plan and interval. */
export const billingOrders = sqliteTable(
  "billing_orders",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: ["razorpay"] }).notNull(),
    providerOrderId: text("provider_order_id").notNull(),
    planId: text("plan_id").notNull(),
    interval: text("interval", { enum: ["monthly", "annual"] }).notNull(),
    amountPaise: integer("amount_paise").notNull(),
    currency: text("currency").notNull(),
    receipt: text("receipt").notNull(),
    status: text("status", { enum: ["created", "paid"] }).notNull().default("created"),
    paymentId: text("payment_id"),
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    paidAt: integer("paid_at"),
  }),
  (t) => [uniqueIndex("billing_orders_provider_uq").on(t.provider, t.providerOrderId), index("billing_orders_workspace_idx").on(t.workspaceId)],
);

/** A paid period: one row per captured payment (razorpay) or operator grant (manual). */
export const invoices = sqliteTable(
  "invoices",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: ["razorpay", "manual"] }).notNull(),
    /** the provider's payment id (razorpay) or a generated reference (manual); unique: a payment pays once */
    paymentRef: text("payment_ref").notNull(),
    orderId: text("order_id"),
    planId: text("plan_id").notNull(),
    interval: text("interval", { enum: ["monthly", "annual"] }).notNull(),
    amountPaise: integer("amount_paise").notNull(),
    currency: text("currency").notNull(),
    status: text("status", { enum: ["paid"] }).notNull().default("paid"),
    periodStart: integer("period_start").notNull(),
    periodEnd: integer("period_end").notNull(),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [uniqueIndex("invoices_payment_uq").on(t.provider, t.paymentRef), index("invoices_workspace_idx").on(t.workspaceId, t.createdAt)],
);

/** Provider webhook events already handled: replays are answered without acting twice. */
export const billingEvents = sqliteTable(
  "billing_events",
  () => ({
    provider: text("provider").notNull(),
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    workspaceId: text("workspace_id"),
    receivedAt: integer("received_at").notNull(),
  }),
  (t) => [primaryKey({ columns: [t.provider, t.eventId] })],
);

/**
 * Windowed usage counters (messages a month, API requests a day), one row per workspace,
 * metric and UTC window (`2026-01` or `2026-01-31`). Rows, so they survive a restart.
 */
export const usageCounters = sqliteTable(
  "usage_counters",
  () => ({
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    metric: text("metric").notNull(),
    period: text("period").notNull(),
    used: integer("used").notNull().default(0),
  }),
  (t) => [primaryKey({ columns: [t.workspaceId, t.metric, t.period] })],
);
