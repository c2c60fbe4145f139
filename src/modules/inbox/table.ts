import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { contacts } from "../contacts/table.ts";
import { users } from "../users/table.ts";
import { workspaces } from "../workspaces/table.ts";

/** One conversation per (session, contact phone): the inbox's unit. Times are unix ms. */
export const conversations = sqliteTable(
  "conversations",
  {
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
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("conversations_session_phone_uq").on(t.workspaceId, t.sessionId, t.phone),
    index("conversations_ws_recent_idx").on(t.workspaceId, t.lastMessageAt, t.id),
    index("conversations_ws_assignee_idx").on(t.workspaceId, t.assigneeId, t.lastMessageAt),
  ],
);
