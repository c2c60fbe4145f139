import { integer, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";

/** A workspace (tenant). Times are unix ms. */
export const workspaces = sqliteTable("workspaces", () => ({
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** plan id of the catalogue: free, starter, growth, pro */
  planId: text("plan_id").notNull().default("growth"),
  subscriptionStatus: text("subscription_status", { enum: ["trialing", "active", "free", "paused", "past_due", "cancelled"] })
    .notNull()
    .default("trialing"),
  billingInterval: text("billing_interval", { enum: ["monthly", "annual"] }),
  trialEndsAt: integer("trial_ends_at"),
  currentPeriodEnd: integer("current_period_end"),
  /** who bills the current paid period: razorpay or manual (operator); null before the first payment */
  billingProvider: text("billing_provider", { enum: ["razorpay", "manual"] }),
  /** every member must pass a second factor at login */
  require2fa: integer("require_2fa", { mode: "boolean" }).notNull().default(false),
  /** inbound texts (trimmed, any case) that opt a contact out, and back in (docs/contacts-and-campaigns.md) */
  optOutKeywords: text("opt_out_keywords", { mode: "json" }).$type<string[]>().notNull().default(["STOP", "UNSUBSCRIBE"]),
  optInKeywords: text("opt_in_keywords", { mode: "json" }).$type<string[]>().notNull().default(["START"]),
  /** IANA time zone of the workspace's hours (auto-reply away hours, docs/automations.md) */
  timezone: text("timezone").notNull().default("UTC"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}));
