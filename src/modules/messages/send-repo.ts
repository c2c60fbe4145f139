import type { Database, Statement } from "bun:sqlite";
import { oncePer } from "../../db/prepared.ts";
import type { SubscriptionStatus } from "../billing/quota.ts";

// The statements of an accepted send, as plain bun:sqlite statements prepared once per
// database: a send runs each of them, and drizzle's placeholder filling and row mapping were
// a third of their cost.

function statements(sqlite: Database) {
  return {
    session: sqlite.prepare(
      `SELECT s.id AS id, s.status AS status, s.phone_number AS phoneNumber, w.subscription_status AS subscriptionStatus
       FROM chat_sessions s JOIN workspaces w ON w.id = s.workspace_id
       WHERE s.workspace_id = ?1 AND s.id = ?2`,
    ),
    // inbox/repo.ts touchConversation (outbound), with the contact looked up in the same statement
    conversation: sqlite.prepare(
      `INSERT INTO conversations (id, workspace_id, session_id, phone, contact_id, last_message_id, last_message_at, unread_count, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, (SELECT id FROM contacts WHERE workspace_id = ?2 AND phone = ?4), ?5, ?6, 0, ?6, ?6)
       ON CONFLICT (workspace_id, session_id, phone) DO UPDATE SET
         contact_id = coalesce(excluded.contact_id, conversations.contact_id),
         last_message_id = excluded.last_message_id,
         last_message_at = max(conversations.last_message_at, excluded.last_message_at),
         updated_at = excluded.updated_at
       RETURNING id`,
    ),
    moveLast: sqlite.prepare(
      `UPDATE conversations SET last_message_id = ?3, last_message_at = max(last_message_at, ?4), updated_at = ?5
       WHERE workspace_id = ?1 AND id = ?2`,
    ),
    // every column not named takes its default (null, attempts 0)
    message: sqlite.prepare(
      `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, session_phone, type, body, media_id, status, created_by, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, 'outbound', ?5, ?6, ?7, ?8, ?9, 'queued', ?10, ?11, ?11)`,
    ),
  };
}

const stmts = oncePer(statements);

export interface SendSession {
  id: string;
  status: string;
  phoneNumber: string | null;
  /** the workspace's, read with the session */
  subscriptionStatus: SubscriptionStatus;
}

/** The session of the workspace a message is sent through, with its workspace's subscription status. */
export function sessionForSend(sqlite: Database, workspaceId: string, sessionId: string): SendSession | null {
  return (stmts(sqlite).session as Statement<SendSession>).get(workspaceId, sessionId);
}

/** Creates or updates the conversation of an outbound message (linking the contact of its number); returns its id. */
export function touchOutboundConversation(sqlite: Database, workspaceId: string, c: { sessionId: string; phone: string; messageId: string; at: number }): string {
  const row = stmts(sqlite).conversation.get(Bun.randomUUIDv7(), workspaceId, c.sessionId, c.phone, c.messageId, c.at) as { id: string };
  return row.id;
}

/**
 * What touchOutboundConversation would have left after more messages to a conversation it
 * already touched: the last one's id and time, the latest `last_message_at`.
 */
export function moveLastMessage(sqlite: Database, workspaceId: string, conversationId: string, last: { messageId: string; maxAt: number; at: number }): void {
  stmts(sqlite).moveLast.run(workspaceId, conversationId, last.messageId, last.maxAt, last.at);
}

/** Inserts an outbound message as `queued`. */
export function insertQueuedMessage(
  sqlite: Database,
  workspaceId: string,
  m: { id: string; sessionId: string; conversationId: string; phone: string; sessionPhone: string | null; type: string; body: string | null; mediaId: string | null; createdBy: string; at: number },
): void {
  stmts(sqlite).message.run(m.id, workspaceId, m.sessionId, m.conversationId, m.phone, m.sessionPhone, m.type, m.body, m.mediaId, m.createdBy, m.at);
}
