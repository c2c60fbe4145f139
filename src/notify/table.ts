import { index, integer, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../db/lazy-table.ts";

export const NOTIFY_CHANNELS = ["log", "smtp", "session", "http"] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/**
 * Every notification sent or attempted (docs/authentication.md). `body` is kept only for the `log` channel, which
 * is the operator's local outbox; the other channels never store codes in clear text.
 */
export const notifications = sqliteTable(
  "notifications",
  () => ({
    id: text("id").primaryKey(),
    medium: text("medium", { enum: ["email", "mobile"] }).notNull(),
    channel: text("channel", { enum: NOTIFY_CHANNELS }).notNull(),
    /** verification, reset, otp, invitation, alert, ... */
    kind: text("kind").notNull(),
    recipient: text("recipient").notNull(),
    subject: text("subject"),
    body: text("body"),
    status: text("status", { enum: ["sent", "failed"] }).notNull(),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [index("notifications_created_idx").on(t.createdAt), index("notifications_channel_idx").on(t.channel, t.createdAt)],
);
