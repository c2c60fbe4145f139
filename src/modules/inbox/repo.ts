import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { usersSql } from "../users/repo.ts";
import { conversations } from "./table.ts";

export type ConversationRow = typeof conversations.$inferSelect;

// prepared once (every message touches its conversation); inbound and outbound differ in the unread count
const touchStmts = preparedOnce((db) => {
  const p = <T>(name: string) => sql.placeholder(name) as unknown as T;
  const touch = (inbound: boolean) =>
    db
      .insert(conversations)
      .values({
        id: p<string>("id"),
        workspaceId: p<string>("ws"),
        sessionId: p<string>("sessionId"),
        phone: p<string>("phone"),
        contactId: p<string | null>("contactId"),
        lastMessageId: p<string>("messageId"),
        lastMessageAt: p<number>("at"),
        unreadCount: inbound ? 1 : 0,
        createdAt: p<number>("at"),
        updatedAt: p<number>("at"),
      })
      .onConflictDoUpdate({
        target: [conversations.workspaceId, conversations.sessionId, conversations.phone],
        set: {
          contactId: sql`coalesce(excluded.contact_id, ${conversations.contactId})`,
          lastMessageId: sql`excluded.last_message_id`,
          lastMessageAt: sql`${db.engine === "postgres" ? sql`greatest` : sql`max`}(${conversations.lastMessageAt}, excluded.last_message_at)`,
          unreadCount: inbound ? sql`${conversations.unreadCount} + 1` : sql`${conversations.unreadCount}`,
          updatedAt: sql`excluded.updated_at`,
        },
      })
      .returning({ id: conversations.id })
      .prepare();
  return { inbound: touch(true), outbound: touch(false) };
});

/**
 * Creates or updates the conversation of (session, phone) for a new message and returns its
 * id. Inbound messages count as unread. Call inside the message's transaction.
 */
export async function touchConversation(
  db: DB,
  workspaceId: string,
  c: { sessionId: string; phone: string; contactId: string | null; messageId: string; at: number; inbound: boolean },
): Promise<string> {
  const row = await (c.inbound ? touchStmts(db).inbound : touchStmts(db).outbound).get({
    id: Bun.randomUUIDv7(),
    ws: workspaceId,
    sessionId: c.sessionId,
    phone: c.phone,
    contactId: c.contactId,
    messageId: c.messageId,
    at: c.at,
  });
  return row!.id;
}

/** One conversation of the workspace. */
export async function findConversation(db: DB, workspaceId: string, id: string): Promise<ConversationRow | undefined> {
  return await db.select().from(conversations).where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id))).get();
}

/** The conversations (one per session) with a phone number or address. */
export async function conversationsOfPhone(db: DB, workspaceId: string, phone: string): Promise<ConversationRow[]> {
  return await db.select().from(conversations).where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.phone, phone))).all();
}

/** Moves a conversation to another phone number (and contact). */
export async function setConversationPhone(db: DB, workspaceId: string, id: string, phone: string, contactId: string | null, at: number): Promise<void> {
  await db
    .update(conversations)
    .set({ phone, contactId: sql`coalesce(${contactId}, ${conversations.contactId})`, updatedAt: at })
    .where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
    .run();
}

/**
 * Folds conversation `from` into `into` (same session, same person) and deletes it: unread
 * counts add up, the later last message wins, an assignee is kept. The messages must have been
 * moved first.
 */
export async function absorbConversation(db: DB, workspaceId: string, from: ConversationRow, intoId: string, contactId: string | null, at: number): Promise<void> {
  const later = sql`${from.lastMessageAt} > ${conversations.lastMessageAt}`;
  // SQLite's scalar max(a, b) is PostgreSQL's greatest(a, b)
  const greatest = db.engine === "postgres" ? sql`greatest` : sql`max`;
  await db
    .update(conversations)
    .set({
      unreadCount: sql`${conversations.unreadCount} + ${from.unreadCount}`,
      lastMessageId: sql`CASE WHEN ${later} THEN ${from.lastMessageId} ELSE ${conversations.lastMessageId} END`,
      lastMessageAt: sql`${greatest}(${conversations.lastMessageAt}, ${from.lastMessageAt})`,
      lastReadAt: sql`${greatest}(coalesce(${conversations.lastReadAt}, 0), ${from.lastReadAt ?? 0})`,
      assigneeId: sql`coalesce(${conversations.assigneeId}, ${from.assigneeId})`,
      contactId: sql`coalesce(${contactId}, ${conversations.contactId})`,
      updatedAt: at,
    })
    .where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, intoId)))
    .run();
  await db.delete(conversations).where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, from.id))).run();
}

/** Marks a conversation read: no unread messages left. */
export async function markConversationRead(db: DB, workspaceId: string, id: string, at: number): Promise<void> {
  await db
    .update(conversations)
    .set({ unreadCount: 0, lastReadAt: at, updatedAt: at })
    .where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
    .run();
}

/** Sets or clears the member a conversation is assigned to. */
export async function setAssignee(db: DB, workspaceId: string, id: string, userId: string | null, at: number): Promise<void> {
  await db
    .update(conversations)
    .set({ assigneeId: userId, updatedAt: at })
    .where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
    .run();
}

export interface ConversationFilter {
  unread?: boolean;
  assigned?: boolean;
  assigneeId?: string;
  sessionId?: string;
}

export interface ConversationListRow {
  id: string;
  sessionId: string;
  phone: string;
  contactId: string | null;
  contactName: string | null;
  contactPushName: string | null;
  unreadCount: number;
  lastMessageAt: number;
  lastReadAt: number | null;
  createdAt: number;
  assigneeId: string | null;
  assigneeName: string | null;
  assigneeEmail: string | null;
  lastId: string | null;
  lastDirection: string | null;
  lastType: string | null;
  lastBody: string | null;
  lastStatus: string | null;
  lastCreatedAt: number | null;
  /** a group conversation: the group's name and members (JSON) as last known */
  groupName: string | null;
  groupParticipants: string | null;
}

const LIST_SELECT = `
  SELECT c.id, c.session_id AS "sessionId", c.phone, c.contact_id AS "contactId", ct.name AS "contactName", ct.push_name AS "contactPushName",
         c.unread_count AS "unreadCount", c.last_message_at AS "lastMessageAt", c.last_read_at AS "lastReadAt", c.created_at AS "createdAt",
         c.assignee_id AS "assigneeId", u.name AS "assigneeName", u.email AS "assigneeEmail",
         m.id AS "lastId", m.direction AS "lastDirection", m.type AS "lastType", m.body AS "lastBody", m.status AS "lastStatus", m.created_at AS "lastCreatedAt",
         g.name AS "groupName", g.participants AS "groupParticipants"
  FROM conversations c
  LEFT JOIN contacts ct ON ct.id = c.contact_id AND ct.workspace_id = c.workspace_id
  ${usersSql.joinMember("u", "c.workspace_id", "c.assignee_id")}
  LEFT JOIN messages m ON m.id = c.last_message_id AND m.workspace_id = c.workspace_id
  LEFT JOIN chat_groups g ON g.workspace_id = c.workspace_id AND g.session_id = c.session_id AND g.id = c.phone`;

function whereClause(workspaceId: string, f: ConversationFilter & { id?: string }): { sql: string; args: (string | number)[] } {
  const parts = ["c.workspace_id = ?"];
  const args: (string | number)[] = [workspaceId];
  if (f.id) (parts.push("c.id = ?"), args.push(f.id));
  if (f.unread !== undefined) parts.push(f.unread ? "c.unread_count > 0" : "c.unread_count = 0");
  if (f.assigned !== undefined) parts.push(f.assigned ? "c.assignee_id IS NOT NULL" : "c.assignee_id IS NULL");
  if (f.assigneeId) (parts.push("c.assignee_id = ?"), args.push(f.assigneeId));
  if (f.sessionId) (parts.push("c.session_id = ?"), args.push(f.sessionId));
  return { sql: parts.join(" AND "), args };
}

/** A page of conversations with their last message, contact and assignee, most recent first. */
export async function listConversations(
  db: DB,
  workspaceId: string,
  f: ConversationFilter & { limit: number; offset: number },
): Promise<{ rows: ConversationListRow[]; total: number }> {
  const w = whereClause(workspaceId, f);
  const rows = await db.prepare<ConversationListRow>(`${LIST_SELECT} WHERE ${w.sql} ORDER BY c.last_message_at DESC, c.id DESC LIMIT ? OFFSET ?`).all(...w.args, f.limit, f.offset);
  const total = (await db.prepare<{ n: number }>(`SELECT count(*) AS n FROM conversations c WHERE ${w.sql}`).get(...w.args))!.n;
  return { rows, total };
}

/** One conversation with its last message, contact and assignee. */
export async function getConversationRow(db: DB, workspaceId: string, id: string): Promise<ConversationListRow | null> {
  const w = whereClause(workspaceId, { id });
  return (await db.prepare<ConversationListRow>(`${LIST_SELECT} WHERE ${w.sql}`).get(...w.args)) ?? null;
}
