import { sql } from "drizzle-orm";
import { index, integer, primaryKey, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { contacts } from "../contacts/table.ts";
import { users } from "../users/table.ts";
import { workspaces } from "../workspaces/table.ts";

/** Where a conversation stands: open (needs work), pending (waiting on someone), closed (done). */
export const CONVERSATION_STATUSES = ["open", "pending", "closed"] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** One conversation per (session, contact phone): the inbox's unit. Times are unix ms. */
export const conversations = sqliteTable(
  "conversations",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    // no foreign key: history outlives a deleted session
    sessionId: text("session_id").notNull(),
    /** digits with country code, no plus */
    phone: text("phone").notNull(),
    contactId: text("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    lastMessageId: text("last_message_id"),
    lastMessageAt: integer("last_message_at").notNull(),
    unreadCount: integer("unread_count").notNull().default(0),
    lastReadAt: integer("last_read_at"),
    assigneeId: text("assignee_id").references(() => users.id, { onDelete: "set null" }),
    status: text("status", { enum: CONVERSATION_STATUSES }).notNull().default("open"),
    /** hidden from the open work until then (unix ms); an inbound message clears it */
    snoozedUntil: integer("snoozed_until"),
    /** the conversation's view; `conversation_labels` holds the same labels for indexed filters */
    labels: text("labels", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** direction of the last message ("needs reply" is inbound); null before the first */
    lastDirection: text("last_direction"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [
    uniqueIndex("conversations_session_phone_uq").on(t.workspaceId, t.sessionId, t.phone),
    index("conversations_ws_recent_idx").on(t.workspaceId, t.lastMessageAt, t.id),
    index("conversations_ws_assignee_idx").on(t.workspaceId, t.assigneeId, t.lastMessageAt, t.id),
    index("conversations_ws_status_idx").on(t.workspaceId, t.status, t.lastMessageAt, t.id),
    index("conversations_ws_session_recent_idx").on(t.workspaceId, t.sessionId, t.lastMessageAt, t.id),
    // the contact search: a contact's conversations
    index("conversations_ws_contact_idx").on(t.workspaceId, t.contactId),
    index("conversations_ws_needs_reply_idx").on(t.workspaceId, t.lastMessageAt, t.id).where(sql`last_direction = 'inbound'`),
  ],
);

/**
 * One row per (conversation, label), written in the same transaction as the conversation's
 * `labels` column. The primary key is the covering index of "conversations labelled X".
 */
export const conversationLabels = sqliteTable(
  "conversation_labels",
  () => ({
    workspaceId: text("workspace_id").notNull(),
    label: text("label").notNull(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
  }),
  (t) => [primaryKey({ columns: [t.workspaceId, t.label, t.conversationId] }), index("conversation_labels_conversation_idx").on(t.conversationId)],
);

/**
 * Internal notes of a conversation's thread: written by a member, never sent, never in a
 * webhook. Ids are UUIDv7 like message ids, so a thread merges both by id.
 */
export const conversationNotes = sqliteTable(
  "conversation_notes",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    /** the member who wrote it (null once the user is deleted) */
    authorId: text("author_id").references(() => users.id, { onDelete: "set null" }),
    body: text("body").notNull(),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [index("conversation_notes_thread_idx").on(t.workspaceId, t.conversationId, t.id)],
);
