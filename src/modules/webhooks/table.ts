import { sql } from "drizzle-orm";
import { index, integer, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/** Why a webhook was switched off by Parley (null when active or switched off by a user). */
export const DISABLED_REASONS = ["gone", "failing"] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** A receiver URL of a workspace. Times are unix ms. */
export const webhooks = sqliteTable(
  "webhooks",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    url: text("url").notNull(),
    /** canonical event names, JSON array */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    /** the signing secret (32 random bytes as hex), encrypted with the data dir's credential key */
    secretEnc: text("secret_enc").notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    /** set when Parley deactivated it: `gone` (the receiver answered 410) or `failing` (5 days of failures) */
    disabledReason: text("disabled_reason", { enum: DISABLED_REASONS }),
    /** first failed attempt since the last success (test deliveries excluded); null while healthy */
    failingSince: integer("failing_since"),
    /** the last failed attempt (test deliveries excluded): a quiet gap longer than any retry starts the count anew */
    lastFailureAt: integer("last_failure_at"),
    lastSuccessAt: integer("last_success_at"),
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [index("webhooks_workspace_idx").on(t.workspaceId, t.isActive)],
);

export const DELIVERY_STATUSES = ["pending", "retrying", "success", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The outbox: one row per (event, webhook), written in the transaction of the change that
 * caused the event. The row is the truth; a dispatcher only leases it.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  () => ({
    /** the delivery id: same across every attempt and manual retry (UUIDv7) */
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    /** the bus event id (several deliveries share it when several webhooks subscribe) */
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /** the exact JSON body, built once at publish time: every attempt sends the same bytes */
    payload: text("payload").notNull(),
    isTest: integer("is_test", { mode: "boolean" }).notNull().default(false),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    /** attempts started so far (the X-Webhook-Attempt of the last one) */
    attempts: integer("attempts").notNull().default(0),
    /**
     * when the next automatic attempt is due (an attempt in flight keeps it: `lease_until` holds
     * the claim, so a claim does not touch the due-order indexes); null when none is planned
     * (finished, a test, or the webhook is switched off)
     */
    nextAttemptAt: integer("next_attempt_at"),
    leaseUntil: integer("lease_until"),
    responseStatus: integer("response_status"),
    /** first 4 KiB of the last answer */
    responseBody: text("response_body"),
    error: text("error"),
    durationMs: integer("duration_ms"),
    lastAttemptAt: integer("last_attempt_at"),
    deliveredAt: integer("delivered_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [
    index("webhook_deliveries_history_idx").on(t.workspaceId, t.webhookId, t.id),
    // only open deliveries, in due order: the dispatcher's claim reads the first entries
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt, t.webhookId).where(sql`status IN ('pending', 'retrying')`),
    // the same per webhook: when an attempt ends, its webhook's next delivery is one index probe away
    index("webhook_deliveries_webhook_due_idx").on(t.webhookId, t.nextAttemptAt).where(sql`status IN ('pending', 'retrying')`),
    index("webhook_deliveries_created_idx").on(t.createdAt),
  ],
);
