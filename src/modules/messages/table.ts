import { sql } from "drizzle-orm";
import { index, integer, primaryKey, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/** Types a message can be sent as (docs/messages.md). */
export const MESSAGE_TYPES = ["text", "image", "document", "audio", "video"] as const;
/** Types a stored message may have (and be sent as): reactions, locations and contact cards too. */
export const STORED_MESSAGE_TYPES = [...MESSAGE_TYPES, "reaction", "location", "contact"] as const;
export const DIRECTIONS = ["outbound", "inbound"] as const;
/**
 * Outbound: queued -> sent -> delivered -> read, or failed; a send with `sendAt` waits as
 * `scheduled` until then (or is `cancelled`). Inbound messages are `received`.
 */
export const MESSAGE_STATUSES = ["queued", "sent", "delivered", "read", "failed", "received", "scheduled", "cancelled"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * Every message, both directions. Ids are UUIDv7, so `id` orders by creation and is the
 * keyset cursor; every list index starts with workspace_id and ends with id.
 */
export const messages = sqliteTable(
  "messages",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    // no foreign key: history outlives a deleted session
    sessionId: text("session_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    direction: text("direction", { enum: DIRECTIONS }).notNull(),
    /** the contact's number (recipient of outbound, sender of inbound), or the group's address (`...@g.us`) */
    phone: text("phone").notNull(),
    /** a group's inbound message: the member who wrote it (phone, or `<digits>@lid`) and the name they go by */
    participant: text("participant"),
    participantName: text("participant_name"),
    /** the session's own number when the message was made */
    sessionPhone: text("session_phone"),
    type: text("type", { enum: STORED_MESSAGE_TYPES }).notNull(),
    /** text, the caption of media, or the text rendering of a reaction, location or contact card */
    body: text("body"),
    /** reaction, location, contact: the structured content as JSON (null for the other types) */
    payload: text("payload"),
    mediaId: text("media_id"),
    /** the message this one quotes (a message of the same conversation), else null */
    replyToId: text("reply_to_id"),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    networkMessageId: text("network_message_id"),
    /** set while a send is in flight: fences the completion of that attempt */
    sendingToken: text("sending_token"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    /** who asked for an outbound message: user id or api key id */
    createdBy: text("created_by"),
    /** the campaign that sent it (docs/contacts-and-campaigns.md), else null; no foreign key: history outlives a deleted campaign */
    campaignId: text("campaign_id"),
    /** the auto-reply that sent it (docs/automations.md), else null; no foreign key, as for campaigns */
    automationId: text("automation_id"),
    createdAt: integer("created_at").notNull(),
    /** a scheduled send: when it is queued (unix ms); null for the others */
    sendAt: integer("send_at"),
    sentAt: integer("sent_at"),
    deliveredAt: integer("delivered_at"),
    readAt: integer("read_at"),
    failedAt: integer("failed_at"),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [
    index("messages_ws_id_idx").on(t.workspaceId, t.id),
    index("messages_ws_session_idx").on(t.workspaceId, t.sessionId, t.id),
    index("messages_ws_phone_idx").on(t.workspaceId, t.phone, t.id),
    index("messages_ws_conversation_idx").on(t.workspaceId, t.conversationId, t.id),
    // analytics: messages of a workspace made in a time range
    index("messages_ws_created_idx").on(t.workspaceId, t.createdAt),
    index("messages_ws_status_idx").on(t.workspaceId, t.status, t.id),
    index("messages_ws_campaign_idx").on(t.workspaceId, t.campaignId, t.id).where(sql`campaign_id IS NOT NULL`),
    index("messages_network_idx").on(t.workspaceId, t.sessionId, t.networkMessageId),
    // group messages by their writer (a LID member's number learnt later rewrites them)
    index("messages_ws_participant_idx").on(t.workspaceId, t.participant).where(sql`participant IS NOT NULL`),
    // the sender's queue: small, holds only messages waiting to go out
    index("messages_queue_idx").on(t.workspaceId, t.sessionId, t.id).where(sql`status = 'queued'`),
  ],
);

/** Outbound messages accepted per workspace and UTC month: the `messagesPerMonth` quota. */
export const messageUsage = sqliteTable(
  "message_usage",
  () => ({
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** YYYY-MM (UTC) */
    period: text("period").notNull(),
    outbound: integer("outbound").notNull().default(0),
  }),
  (t) => [primaryKey({ columns: [t.workspaceId, t.period] })],
);

/** `Idempotency-Key` of send requests: the first answer, kept 24 h. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  () => ({
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** SHA-256 of the route and the request body: the same key with another body is a conflict */
    requestHash: text("request_hash").notNull(),
    statusCode: integer("status_code").notNull(),
    response: text("response").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  }),
  (t) => [primaryKey({ columns: [t.workspaceId, t.key] }), index("idempotency_expires_idx").on(t.expiresAt)],
);
