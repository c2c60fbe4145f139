import { sql } from "drizzle-orm";
import { index, integer, primaryKey, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

export const CAMPAIGN_STATUSES = ["draft", "scheduled", "running", "paused", "completed", "cancelled", "failed"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const PAUSED_REASONS = ["user_request", "missed_schedule", "session_disconnected", "quota_exceeded", "failure_rate", "plan_inactive"] as const;
export type PausedReason = (typeof PAUSED_REASONS)[number];
export const RECIPIENT_STATUSES = ["pending", "sent", "delivered", "read", "failed", "skipped"] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];
export const SKIPPED_REASONS = ["opted_out", "duplicate", "cancelled", "contact_deleted", "not_on_network"] as const;
export type SkippedReason = (typeof SKIPPED_REASONS)[number];

/**
 * A bulk campaign (docs/contacts-and-campaigns.md). The stats columns are counters kept in the transaction of every
 * recipient change, so progress costs one row read; they always add up to `total`.
 * Times are unix ms; message, audience, schedule and pacing are JSON as the API gives them.
 */
export const campaigns = sqliteTable(
  "campaigns",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    status: text("status", { enum: CAMPAIGN_STATUSES }).notNull(),
    pausedReason: text("paused_reason", { enum: PAUSED_REASONS }),
    sessionIds: text("session_ids", { mode: "json" }).$type<string[]>().notNull(),
    message: text("message", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    audience: text("audience", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    schedule: text("schedule", { mode: "json" }).$type<{ at: string; maxLatenessMinutes: number } | null>(),
    pacing: text("pacing", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** media the campaign sends (from message.mediaId, or message.mediaUrl fetched at start) */
    mediaId: text("media_id"),
    total: integer("total").notNull().default(0),
    pending: integer("pending").notNull().default(0),
    sent: integer("sent").notNull().default(0),
    delivered: integer("delivered").notNull().default(0),
    read: integer("read").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    skipped: integer("skipped").notNull().default(0),
    /** materialising the audience: where the next batch begins (a contact id, or a position in a list); null once done */
    materializeCursor: text("materialize_cursor"),
    /** a segment or filter audience's filter as it was at start (a segment's read then): what is materialised */
    audienceFilter: text("audience_filter", { mode: "json" }).$type<Record<string, unknown> | null>(),
    /** set when every recipient row exists (the audience is frozen) */
    materializedAt: integer("materialized_at"),
    /** per session of the campaign, when it may take its next recipient: {sessionId: unix ms} */
    pacingState: text("pacing_state", { mode: "json" }).$type<Record<string, number>>().notNull().default({}),
    /** index into sessionIds of the session whose turn comes first */
    turn: integer("turn").notNull().default(0),
    /** outcomes of the latest sends, newest last: "s" sent, "f" failed (at most 50; failure-rate pause) */
    recentOutcomes: text("recent_outcomes").notNull().default(""),
    /** while running but every session waits (caps, quiet hours): when sending can go on */
    waitingUntil: integer("waiting_until"),
    /** campaign_progress throttle: when the last one was published, and whether counts moved since */
    progressAt: integer("progress_at"),
    progressDirty: integer("progress_dirty", { mode: "boolean" }).notNull().default(false),
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    startedAt: integer("started_at"),
    completedAt: integer("completed_at"),
  }),
  (t) => [index("campaigns_ws_idx").on(t.workspaceId, t.id), index("campaigns_status_idx").on(t.status)],
);

/** One person a campaign sends to, frozen when it starts. `messageId` is set in the transaction that creates the message. */
export const campaignRecipients = sqliteTable(
  "campaign_recipients",
  () => ({
    id: text("id").primaryKey(),
    campaignId: text("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    // no foreign key: a contact deleted mid-campaign keeps its recipient row
    contactId: text("contact_id"),
    phone: text("phone").notNull(),
    status: text("status", { enum: RECIPIENT_STATUSES }).notNull(),
    skippedReason: text("skipped_reason", { enum: SKIPPED_REASONS }),
    messageId: text("message_id"),
    sessionId: text("session_id"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    sentAt: integer("sent_at"),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [
    // lists by status, cancel's bulk skip, and the engine's next-pending scan (pending rows in id
    // order: the few ahead that already have a message, at most a window per session, are stepped over)
    index("campaign_recipients_status_idx").on(t.campaignId, t.status, t.id),
    index("campaign_recipients_message_idx").on(t.messageId).where(sql`message_id IS NOT NULL`),
    // one message per phone and campaign: a repeated phone is kept only as a `duplicate` skip
    uniqueIndex("campaign_recipients_phone_uq").on(t.campaignId, t.phone).where(sql`skipped_reason IS NULL OR skipped_reason <> 'duplicate'`),
  ],
);

/** Campaign messages a session was given per UTC day, all campaigns together (daily caps and warm-up). */
export const campaignSendDays = sqliteTable(
  "campaign_send_days",
  () => ({
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    sessionId: text("session_id").notNull(),
    /** YYYY-MM-DD (UTC) */
    day: text("day").notNull(),
    count: integer("count").notNull().default(0),
  }),
  (t) => [primaryKey({ columns: [t.sessionId, t.day] })],
);

/**
 * A segment or filter audience staged by earlier builds: the matching contacts copied in the
 * start transaction by one INSERT ... SELECT, then turned into recipients batch by batch, each
 * batch deleting the rows it consumed. Campaigns started now read the contacts in windows
 * instead (`audience_filter`); a campaign an earlier build left half materialised goes on from here.
 */
export const campaignAudience = sqliteTable(
  "campaign_audience",
  () => ({
    campaignId: text("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    contactId: text("contact_id").notNull(),
    phone: text("phone").notNull(),
  }),
  (t) => [primaryKey({ columns: [t.campaignId, t.contactId] })],
);
