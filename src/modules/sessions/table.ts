import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "../workspaces/table.ts";

export const SESSION_STATUSES = ["disconnected", "qr_pending", "connected"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** A linked number of the chat network ("session"). */
export const chatSessions = sqliteTable(
  "chat_sessions",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    status: text("status", { enum: SESSION_STATUSES }).notNull().default("disconnected"),
    /** digits with country code, no plus; null until connected */
    phoneNumber: text("phone_number"),
    /** network credentials, encrypted with the data dir's credential key; null when unlinked */
    credentials: text("credentials"),
    /** reason of the last disconnect (user_request, logged_out, connection_lost, ...) */
    lastDisconnectReason: text("last_disconnect_reason"),
    connectedAt: integer("connected_at"),
    /** the first time the session ever connected: campaign warm-up counts its days from here (D11) */
    firstConnectedAt: integer("first_connected_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("chat_sessions_name_uq").on(t.workspaceId, t.name), index("chat_sessions_status_idx").on(t.status)],
);
