import { index, integer, primaryKey, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

export const SESSION_STATUSES = ["disconnected", "qr_pending", "connected"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** A linked number of the chat network ("session"). */
export const chatSessions = sqliteTable(
  "chat_sessions",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    status: text("status", { enum: SESSION_STATUSES }).notNull().default("disconnected"),
    /** digits with country code, no plus; null until connected */
    phoneNumber: text("phone_number"),
    /**
     * network credentials, encrypted with the data dir's credential key; null when unlinked.
     * baileys: the `creds` document only; its signal keys are rows of `session_keys`.
     */
    credentials: text("credentials"),
    /** reason of the last disconnect (user_request, logged_out, connection_lost, ...) */
    lastDisconnectReason: text("last_disconnect_reason"),
    connectedAt: integer("connected_at"),
    /** the network restricted the account: the outbound queue waits until then (ms) */
    sendPausedUntil: integer("send_paused_until"),
    sendPauseReason: text("send_pause_reason"),
    /** the first time the session ever connected: campaign warm-up counts its days from here (docs/contacts-and-campaigns.md) */
    firstConnectedAt: integer("first_connected_at"),
    /** setting: store the session's group messages (docs/groups.md); off drops them */
    groups: integer("groups", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [uniqueIndex("chat_sessions_name_uq").on(t.workspaceId, t.name), index("chat_sessions_status_idx").on(t.status)],
);

/**
 * The signal keys of a linked session, one row per key, each value sealed with the credential
 * key (bound to session, type and id). Written in one transaction per change the network
 * makes, so a crash loses nothing already handed to the network.
 */
export const sessionKeys = sqliteTable(
  "session_keys",
  () => ({
    sessionId: text("session_id")
      .notNull()
      .references(() => chatSessions.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    id: text("id").notNull(),
    value: text("value").notNull(),
  }),
  (t) => [primaryKey({ columns: [t.sessionId, t.type, t.id] })],
);

/**
 * Which node holds a session's network link (docs/cluster.md): one row per session that was
 * ever held. `epoch` grows with every new holder and is the fencing token: a credential or key
 * write carries the epoch its node was given and does nothing once the row says otherwise.
 * A lease whose `expiresAt` (ms) has passed may be taken by any node.
 */
export const sessionLeases = sqliteTable(
  "session_leases",
  () => ({
    sessionId: text("session_id")
      .primaryKey()
      .references(() => chatSessions.id, { onDelete: "cascade" }),
    nodeId: text("node_id").notNull(),
    epoch: integer("epoch").notNull(),
    expiresAt: integer("expires_at").notNull(),
    /** when the current holder took it (ms) */
    acquiredAt: integer("acquired_at").notNull(),
    /** when the holder's link to the network last opened (ms); null while it is not open (a new holder starts with null) */
    linkedAt: integer("linked_at"),
  }),
  (t) => [index("session_leases_node_idx").on(t.nodeId)],
);
