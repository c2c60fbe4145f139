import type { DB } from "../../db/store.ts";
import { oncePer } from "../../db/prepared.ts";
import { heldSqlite } from "../../db/sqlite.ts";
import type { SubscriptionStatus } from "../billing/quota.ts";

// The statements of an accepted send, as raw statements prepared once per store: a send runs
// each of them, and drizzle's placeholder filling and row mapping were a third of their cost.

// every column not named takes its default (null, attempts 0)
const MESSAGE_SQL = `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, session_phone, type, body, payload, reply_to_id, media_id, status, created_by, automation_id, created_at, updated_at)
   VALUES (?, ?, ?, ?, 'outbound', ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)`;

function statements(db: DB) {
  const greatest = db.engine === "postgres" ? "greatest" : "max";
  return {
    session: db.prepare<SendSession>(
      `SELECT s.id AS id, s.status AS status, s.phone_number AS "phoneNumber", w.subscription_status AS "subscriptionStatus"
       FROM chat_sessions s JOIN workspaces w ON w.id = s.workspace_id
       WHERE s.workspace_id = ? AND s.id = ?`,
    ),
    // inbox/repo.ts touchConversation (outbound), with the contact looked up in the same statement
    conversation: db.prepare<{ id: string }>(
      `INSERT INTO conversations (id, workspace_id, session_id, phone, contact_id, last_message_id, last_message_at, unread_count, last_direction, created_at, updated_at)
       VALUES (?, ?, ?, ?, (SELECT id FROM contacts WHERE workspace_id = ? AND phone = ?), ?, ?, 0, 'outbound', ?, ?)
       ON CONFLICT (workspace_id, session_id, phone) DO UPDATE SET
         contact_id = coalesce(excluded.contact_id, conversations.contact_id),
         last_message_id = excluded.last_message_id,
         last_message_at = ${greatest}(conversations.last_message_at, excluded.last_message_at),
         last_direction = 'outbound',
         updated_at = excluded.updated_at
       RETURNING id`,
    ),
    moveLast: db.prepare(
      `UPDATE conversations SET last_message_id = ?, last_message_at = ${greatest}(last_message_at, ?), last_direction = 'outbound', updated_at = ?
       WHERE workspace_id = ? AND id = ?`,
    ),
    // the conversation of a scheduled send: made when missing, else left as it is (its last message moves when the send is queued)
    ensureConversation: db.prepare<{ id: string }>(
      `INSERT INTO conversations (id, workspace_id, session_id, phone, contact_id, last_message_id, last_message_at, unread_count, last_direction, created_at, updated_at)
       VALUES (?, ?, ?, ?, (SELECT id FROM contacts WHERE workspace_id = ? AND phone = ?), ?, ?, 0, 'outbound', ?, ?)
       ON CONFLICT (workspace_id, session_id, phone) DO UPDATE SET updated_at = conversations.updated_at
       RETURNING id`,
    ),
    scheduled: db.prepare(
      `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, session_phone, type, body, media_id, status, created_by, send_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'outbound', ?, ?, ?, ?, ?, 'scheduled', ?, ?, ?, ?)`,
    ),
    message: db.prepare(MESSAGE_SQL),
    // PostgreSQL: a send group's queued messages in one statement (see insertQueuedMessages); a
    // message without its conversation's id takes the id of its (session, phone)'s conversation
    ...(db.engine === "postgres"
      ? {
          messages: db.prepare(
            `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, session_phone, type, body, payload, reply_to_id, media_id, status, created_by, automation_id, created_at, updated_at)
             SELECT r.id, r.ws, r.sess,
               coalesce(r.conv, (SELECT c.id FROM conversations c WHERE c.workspace_id = r.ws AND c.session_id = r.sess AND c.phone = r.phone)),
               'outbound', r.phone, r.sphone, r.kind, r.body, r.payload, r.reply, r.media, 'queued', r.creator, r.auto, r.at, r.at
             FROM jsonb_to_recordset(?::jsonb) AS r(id text, ws text, sess text, conv text, phone text, sphone text, kind text, body text, payload text, reply text, media text, creator text, auto text, at bigint)
             ORDER BY r.id`,
          ),
        }
      : {}),
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
export async function sessionForSend(db: DB, workspaceId: string, sessionId: string): Promise<SendSession | null> {
  return (await stmts(db).session.get(workspaceId, sessionId)) ?? null;
}

/** Creates or updates the conversation of an outbound message (linking the contact of its number); returns its id. */
export async function touchOutboundConversation(db: DB, workspaceId: string, c: { sessionId: string; phone: string; messageId: string; at: number }): Promise<string> {
  const row = await stmts(db).conversation.get(Bun.randomUUIDv7(), workspaceId, c.sessionId, c.phone, workspaceId, c.phone, c.messageId, c.at, c.at, c.at);
  return row!.id;
}

/**
 * What touchOutboundConversation would have left after more messages to a conversation it
 * already touched: the last one's id and time, the latest `last_message_at`.
 */
export async function moveLastMessage(db: DB, workspaceId: string, conversationId: string, last: { messageId: string; maxAt: number; at: number }): Promise<void> {
  await stmts(db).moveLast.run(last.messageId, last.maxAt, last.at, workspaceId, conversationId);
}

/**
 * touchOutboundConversation once for several messages to one conversation (a send group's on
 * PostgreSQL): what it and moveLastMessage would have left, in one statement. Created at the
 * first message's time when missing; the last message is the last one's, `last_message_at` the
 * latest. The id is not read back (the group's messages find it by session and number).
 */
export async function touchOutboundConversationFor(
  db: DB,
  workspaceId: string,
  c: { sessionId: string; phone: string; messageId: string; firstAt: number; maxAt: number; at: number },
): Promise<void> {
  await stmts(db).conversation.run(Bun.randomUUIDv7(), workspaceId, c.sessionId, c.phone, workspaceId, c.phone, c.messageId, c.maxAt, c.firstAt, c.at);
}

/** The conversation a scheduled send belongs to: created when missing (with it as the last message), otherwise unchanged. */
export async function ensureConversation(db: DB, workspaceId: string, c: { sessionId: string; phone: string; messageId: string; at: number }): Promise<string> {
  const row = await stmts(db).ensureConversation.get(Bun.randomUUIDv7(), workspaceId, c.sessionId, c.phone, workspaceId, c.phone, c.messageId, c.at, c.at, c.at);
  return row!.id;
}

/** Inserts an outbound message as `scheduled`, to be queued at `sendAt`. */
export async function insertScheduledMessage(
  db: DB,
  workspaceId: string,
  m: { id: string; sessionId: string; conversationId: string; phone: string; sessionPhone: string | null; type: string; body: string | null; mediaId: string | null; createdBy: string; sendAt: number; at: number },
): Promise<void> {
  await stmts(db).scheduled.run(m.id, workspaceId, m.sessionId, m.conversationId, m.phone, m.sessionPhone, m.type, m.body, m.mediaId, m.createdBy, m.sendAt, m.at, m.at);
}

/** An outbound message to insert as `queued`. */
export interface QueuedMessage {
  id: string;
  sessionId: string;
  conversationId: string;
  phone: string;
  sessionPhone: string | null;
  type: string;
  body: string | null;
  payload?: string | null;
  replyToId?: string | null;
  mediaId: string | null;
  createdBy: string;
  automationId?: string | null;
  at: number;
}

const messageParams = (workspaceId: string, m: QueuedMessage) =>
  [m.id, workspaceId, m.sessionId, m.conversationId, m.phone, m.sessionPhone, m.type, m.body, m.payload ?? null, m.replyToId ?? null, m.mediaId, m.createdBy, m.automationId ?? null, m.at, m.at] as const;

/** Inserts an outbound message as `queued`. */
export async function insertQueuedMessage(db: DB, workspaceId: string, m: QueuedMessage): Promise<void> {
  await stmts(db).message.run(...messageParams(workspaceId, m));
}

/**
 * insertQueuedMessage at once, when this async context holds SQLite's transaction (a send
 * group's): true when inserted, false otherwise (PostgreSQL, or no transaction held), when the
 * caller awaits insertQueuedMessage instead. The same statement in the same transaction, without
 * an await: a group commit of sends makes one per send.
 */
export function insertQueuedMessageNow(db: DB, workspaceId: string, m: QueuedMessage): boolean {
  const held = heldSqlite(db);
  if (!held) return false;
  held.query(MESSAGE_SQL).run(...messageParams(workspaceId, m));
  return true;
}

/**
 * PostgreSQL only: several outbound messages inserted as `queued` in one statement (a send
 * group's, each with its workspace): one round trip under the write lock instead of one each.
 * A message whose `conversationId` is empty gets the id of the conversation of its session and
 * number (which must exist by then).
 */
export async function insertQueuedMessages(db: DB, rows: readonly (QueuedMessage & { workspaceId: string })[]): Promise<void> {
  const many = stmts(db).messages;
  if (!many) throw new Error("insertQueuedMessages: PostgreSQL only");
  const records = rows.map((m) => ({
    id: m.id,
    ws: m.workspaceId,
    sess: m.sessionId,
    conv: m.conversationId || null,
    phone: m.phone,
    sphone: m.sessionPhone,
    kind: m.type,
    body: m.body,
    payload: m.payload ?? null,
    reply: m.replyToId ?? null,
    media: m.mediaId,
    creator: m.createdBy,
    auto: m.automationId ?? null,
    at: m.at,
  }));
  await many.run(JSON.stringify(records));
}
