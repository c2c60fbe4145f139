import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { anyOfSql } from "../../db/any-of.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { usersSql } from "../users/repo.ts";
import { moveNotes } from "./notes-repo.ts";
import { conversationLabels, conversations, type ConversationStatus } from "./table.ts";

export type ConversationRow = typeof conversations.$inferSelect;

// prepared once (every message touches its conversation). Inbound counts as unread and reopens
// a closed or snoozed conversation; a conversation a campaign creates starts closed.
const touchStmts = preparedOnce((db) => {
  const p = <T>(name: string) => sql.placeholder(name) as unknown as T;
  const touch = (inbound: boolean, startClosed = false) =>
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
        status: startClosed ? "closed" : "open",
        lastDirection: inbound ? "inbound" : "outbound",
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
          lastDirection: sql`excluded.last_direction`,
          ...(inbound ? { status: sql`CASE WHEN ${conversations.status} = 'closed' THEN 'open' ELSE ${conversations.status} END`, snoozedUntil: null } : {}),
          updatedAt: sql`excluded.updated_at`,
        },
      })
  return {
    // an inbound message's conversation comes back whole: its live event is built from it (inbox/service.ts)
    inbound: touch(true).returning().prepare(),
    outbound: touch(false).returning({ id: conversations.id }).prepare(),
    campaign: touch(false, true).returning({ id: conversations.id }).prepare(),
  };
});

/**
 * Creates or updates the conversation of (session, phone) for a new message and returns its
 * id. Inbound messages count as unread and reopen a closed or snoozed conversation; a
 * campaign's message (`campaign: true`) creates its conversation closed. Call inside the
 * message's transaction.
 */
export async function touchConversation(
  db: DB,
  workspaceId: string,
  c: { sessionId: string; phone: string; contactId: string | null; messageId: string; at: number; inbound: boolean; campaign?: boolean },
): Promise<string> {
  if (c.inbound) return (await touchInboundConversation(db, workspaceId, c)).id;
  const s = touchStmts(db);
  const row = await (c.campaign ? s.campaign : s.outbound).get(touchParams(workspaceId, c));
  return row!.id;
}

/** touchConversation for an inbound message, answering the conversation as it now is. */
export async function touchInboundConversation(
  db: DB,
  workspaceId: string,
  c: { sessionId: string; phone: string; contactId: string | null; messageId: string; at: number },
): Promise<ConversationRow> {
  return (await touchStmts(db).inbound.get(touchParams(workspaceId, c)))!;
}

/**
 * `touchInboundConversation` for a conversation whose row (or absence) the caller read in the
 * same transaction (`prior`): answers the row as the upsert leaves it, computed here, and hands
 * the upsert to `send` (to await, or to send without waiting for its answer). The upsert checks
 * its own answer against the computed row: a conversation that moved meanwhile fails it.
 */
export async function touchKnownInboundConversation(
  db: DB,
  workspaceId: string,
  prior: ConversationRow | undefined,
  c: { sessionId: string; phone: string; contactId: string | null; messageId: string; at: number },
  send: (write: Promise<void>) => Promise<void>,
): Promise<ConversationRow> {
  const params = touchParams(workspaceId, c);
  const row: ConversationRow = prior
    ? {
        ...prior,
        contactId: c.contactId ?? prior.contactId,
        lastMessageId: c.messageId,
        lastMessageAt: Math.max(prior.lastMessageAt, c.at),
        unreadCount: prior.unreadCount + 1,
        lastDirection: "inbound",
        status: prior.status === "closed" ? "open" : prior.status,
        snoozedUntil: null,
        updatedAt: c.at,
      }
    : {
        id: params.id,
        workspaceId,
        sessionId: c.sessionId,
        phone: c.phone,
        contactId: c.contactId,
        lastMessageId: c.messageId,
        lastMessageAt: c.at,
        unreadCount: 1,
        lastReadAt: null,
        assigneeId: null,
        status: "open",
        snoozedUntil: null,
        labels: [],
        lastDirection: "inbound",
        createdAt: c.at,
        updatedAt: c.at,
      };
  await send(
    touchStmts(db)
      .inbound.get(params)
      .then((stored) => {
        if (stored?.id !== row.id || Number(stored.unreadCount) !== row.unreadCount || stored.status !== row.status) {
          throw new Error(`conversation ${row.id}: the row changed since it was read in this transaction`);
        }
      }),
  );
  return row;
}

/** The conversations of several phones (or group addresses) of one session, by phone: one read. */
export async function conversationsOfPhones(db: DB, workspaceId: string, sessionId: string, phones: string[]): Promise<Map<string, ConversationRow>> {
  // an index probe per phone on PostgreSQL, not a scan of the session's conversations (see anyOf)
  const among = anyOfSql(db, phones);
  const rows = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.sessionId, sessionId), sql`${conversations.phone} ${among}`))
    .all();
  return new Map(rows.map((r) => [r.phone, r]));
}

const touchParams = (workspaceId: string, c: { sessionId: string; phone: string; contactId: string | null; messageId: string; at: number }) => ({
  id: Bun.randomUUIDv7(),
  ws: workspaceId,
  sessionId: c.sessionId,
  phone: c.phone,
  contactId: c.contactId,
  messageId: c.messageId,
  at: c.at,
});

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
      lastDirection: sql`CASE WHEN ${later} THEN ${from.lastDirection} ELSE ${conversations.lastDirection} END`,
      lastMessageAt: sql`${greatest}(${conversations.lastMessageAt}, ${from.lastMessageAt})`,
      lastReadAt: sql`${greatest}(coalesce(${conversations.lastReadAt}, 0), ${from.lastReadAt ?? 0})`,
      assigneeId: sql`coalesce(${conversations.assigneeId}, ${from.assigneeId})`,
      contactId: sql`coalesce(${contactId}, ${conversations.contactId})`,
      updatedAt: at,
    })
    .where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, intoId)))
    .run();
  if (from.labels.length) {
    const into = await db.select({ labels: conversations.labels }).from(conversations).where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, intoId))).get();
    const labels = [...new Set([...(into?.labels ?? []), ...from.labels])];
    await updateConversation(db, workspaceId, intoId, { labels }, at);
  }
  await moveNotes(db, workspaceId, from.id, intoId);
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
  status?: ConversationStatus;
  label?: string;
  needsReply?: boolean;
  /** contact name, push name or phone (part of) */
  q?: string;
  /** snoozed at this time (true) or not (false) */
  snoozed?: { now: number; is: boolean };
  /**
   * how a label is matched: `set` reads the label's conversations and sorts them (few of
   * them), `probe` walks the recent index and looks each row up (many: the page fills fast)
   */
  labelPlan?: "set" | "probe";
  /** how `q` is matched, like labelPlan: the matching set sorted (few), or a filter on the recent walk (many) */
  qPlan?: "set" | "probe";
  /** with qPlan `set`: the matching conversations' ids, already read (see qMatches) */
  qIds?: string[];
}

/** From this many characters a term goes through the trigram indexes (shorter terms hold no trigram). */
export const Q_INDEXED_FROM = 3;

/**
 * The conversations whose phone, or whose contact's name or push name, holds the term: its
 * statement (the ids) and arguments. A term of 3 or more characters goes through the trigram
 * indexes (SQLite: FTS5 tables `conversations_phone_q` and `contacts_name_q`, their candidates
 * checked again with LIKE so both plans agree on case; PostgreSQL: the pg_trgm GIN indexes that
 * ILIKE uses by itself). A term of 1 or 2 characters, which holds no trigram, is itself one of
 * the texts' grams (each character and pair of neighbouring characters, lower case): SQLite
 * matches its token in the FTS5 indexes `conversations_phone_g` and `contacts_name_g` (kept by
 * triggers), PostgreSQL reads the GIN indexes of `inbox_q_grams(phone|name|push_name)`; the
 * candidates are checked for the workspace and again with LIKE/ILIKE.
 * `UNION ALL` (for a bounded count) streams the matches and may list a conversation twice.
 */
export function qSetSql(db: DB, workspaceId: string, q: string, union: "UNION" | "UNION ALL" = "UNION"): { sql: string; args: string[] } {
  const t = termOf(q);
  if ([...q].length < Q_INDEXED_FROM) {
    if (db.engine === "postgres") {
      // GIN indexes of the texts' grams (inbox_q_grams): the expressions as the indexes have
      // them. `|| ''` keeps an index off a condition: the check from the trigram indexes
      // (which would read themselves whole for a pattern without a trigram), the contacts'
      // workspace from an index of the workspace's rows ANDed with the grams' few.
      return {
        sql: `SELECT c1.id FROM conversations c1
              WHERE c1.workspace_id = ? AND inbox_q_grams(c1.phone) @> ARRAY[lower(?)] AND (c1.phone || '') ILIKE ? ESCAPE '\\'
            ${union} SELECT c2.id FROM contacts k JOIN conversations c2 ON c2.workspace_id = k.workspace_id AND c2.contact_id = k.id
              WHERE (k.workspace_id || '') = ? AND (inbox_q_grams(k.name) @> ARRAY[lower(?)] OR inbox_q_grams(k.push_name) @> ARRAY[lower(?)])
                AND ((k.name || '') ILIKE ? ESCAPE '\\' OR (k.push_name || '') ILIKE ? ESCAPE '\\')`,
        args: [workspaceId, q, t, workspaceId, q, q, t, t],
      };
    }
    // the term's token in the FTS5 indexes of the grams (hex of the lower-case gram, as the
    // triggers write them); the matches lead and each row is checked for the workspace
    const token = `'"' || hex(lower(?)) || '"'`;
    return {
      sql: `SELECT c1.id FROM conversations_phone_g f1 JOIN conversations c1 ON c1.rowid = f1.rowid
            WHERE conversations_phone_g MATCH ${token} AND +c1.workspace_id = ? AND c1.phone LIKE ? ESCAPE '\\'
          ${union} SELECT c2.id FROM contacts_name_g f2 JOIN contacts k ON k.rowid = f2.rowid
            JOIN conversations c2 ON c2.workspace_id = k.workspace_id AND c2.contact_id = k.id
            WHERE contacts_name_g MATCH ${token} AND +k.workspace_id = ? AND (k.name LIKE ? ESCAPE '\\' OR k.push_name LIKE ? ESCAPE '\\')`,
      args: [q, workspaceId, t, q, workspaceId, t, t],
    };
  }
  if (db.engine === "postgres") {
    // `length(phone) > 0`: the condition of the phone's trigram index (a partial index, so that
    // reads by `phone = ...` never take it: see its migration)
    return {
      sql: `SELECT c1.id FROM conversations c1 WHERE c1.workspace_id = ? AND length(c1.phone) > 0 AND c1.phone ILIKE ? ESCAPE '\\'
          ${union} SELECT c2.id FROM contacts k JOIN conversations c2 ON c2.workspace_id = k.workspace_id AND c2.contact_id = k.id
          WHERE k.workspace_id = ? AND (k.name ILIKE ? ESCAPE '\\' OR k.push_name ILIKE ? ESCAPE '\\')`,
      args: [workspaceId, t, workspaceId, t, t],
    };
  }
  // a phrase of the term's trigrams: the term as one substring (quotes doubled). The matches
  // lead (a join streams them, so a bounded count stops early) and each row is checked for the
  // workspace; the unary `+` keeps SQLite from walking the workspace's rows instead.
  const phrase = `"${q.replace(/"/g, '""')}"`;
  return {
    sql: `SELECT c1.id FROM conversations_phone_q f1 JOIN conversations c1 ON c1.rowid = f1.rowid
          WHERE conversations_phone_q MATCH ? AND +c1.workspace_id = ? AND c1.phone LIKE ? ESCAPE '\\'
          ${union} SELECT c2.id FROM contacts_name_q f2 JOIN contacts k ON k.rowid = f2.rowid
          JOIN conversations c2 ON c2.workspace_id = k.workspace_id AND c2.contact_id = k.id
          WHERE contacts_name_q MATCH ? AND +k.workspace_id = ? AND (k.name LIKE ? ESCAPE '\\' OR k.push_name LIKE ? ESCAPE '\\')`,
    args: [phrase, workspaceId, t, phrase, workspaceId, t, t],
  };
}
const likeOf = (db: DB) => (db.engine === "postgres" ? "ILIKE" : "LIKE");
const termOf = (q: string) => `%${q.replace(/[%_\\]/g, (ch) => "\\" + ch)}%`;

/**
 * How `q` is read, found by reading its matches up to LABEL_PROBE_FROM (a conversation whose
 * phone and name both match counting twice): from there `probe`; below it `set`, with the
 * matching ids, so the page reads them by id rather than matching again. The count streams:
 * a term matching many stops early, one matching few reads its index through (trigrams from
 * 3 characters; below, the grams of single characters and pairs).
 */
export async function qMatches(db: DB, workspaceId: string, q: string): Promise<{ qPlan: "set" | "probe"; qIds?: string[] }> {
  if (db.engine === "postgres" && [...q].length < Q_INDEXED_FROM && (await commonInRecent(db, workspaceId, q))) return { qPlan: "probe" };
  const s = qSetSql(db, workspaceId, q, "UNION ALL");
  const rows = await db.prepare<{ id: string }>(`SELECT id FROM (${s.sql}) x LIMIT ?`).all(...s.args, LABEL_PROBE_FROM);
  return rows.length >= LABEL_PROBE_FROM ? { qPlan: "probe" } : { qPlan: "set", qIds: [...new Set(rows.map((r) => r.id))] };
}

/** How many of the most recent conversations a short term is first matched against on PostgreSQL, and the matches among them that make it common. */
const RECENT_SAMPLE = 500;
const COMMON_IN_SAMPLE = 5;

/**
 * PostgreSQL, a term of 1 or 2 characters: whether it matches at least COMMON_IN_SAMPLE of the
 * workspace's RECENT_SAMPLE most recent conversations. A GIN index answers with a bitmap of
 * every row holding the gram, which for a common one (a digit, a vowel) is most of the
 * workspace's rows, read whole before the first match; the recent walk fills a page of such a
 * term within a few rows, so it goes there at once. (Each contact is looked up by its key, in
 * a LATERAL with LIMIT: a plain join of these rows is planned as a hash of all the
 * workspace's contacts.)
 */
async function commonInRecent(db: DB, workspaceId: string, q: string): Promise<boolean> {
  const t = termOf(q);
  const row = await db
    .prepare<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT r.id FROM (SELECT c.id, c.phone, c.contact_id FROM conversations c WHERE c.workspace_id = ? ORDER BY c.last_message_at DESC, c.id DESC LIMIT ?) r
         LEFT JOIN LATERAL (SELECT k.name, k.push_name FROM contacts k WHERE k.id = r.contact_id AND k.workspace_id = ? LIMIT 1) ct ON true
         WHERE r.phone ILIKE ? ESCAPE '\\' OR ct.name ILIKE ? ESCAPE '\\' OR ct.push_name ILIKE ? ESCAPE '\\'
         LIMIT ?) x`,
    )
    .get(workspaceId, RECENT_SAMPLE, workspaceId, t, t, t, COMMON_IN_SAMPLE);
  return Number(row?.n ?? 0) >= COMMON_IN_SAMPLE;
}

/** The plan `qMatches` picks. */
export async function qPlan(db: DB, workspaceId: string, q: string): Promise<"set" | "probe"> {
  return (await qMatches(db, workspaceId, q)).qPlan;
}

/** From this many conversations with a label, a page walks the recent index instead of sorting the label's set. */
export const LABEL_PROBE_FROM = 1000;

/** `probe` when the label has at least LABEL_PROBE_FROM conversations (counted up to there, on the label's key), else `set`. */
export async function labelPlan(db: DB, workspaceId: string, label: string): Promise<"set" | "probe"> {
  const row = await db
    .prepare<{ n: number }>("SELECT count(*) AS n FROM (SELECT 1 FROM conversation_labels WHERE workspace_id = ? AND label = ? LIMIT ?) x")
    .get(workspaceId, label, LABEL_PROBE_FROM);
  return Number(row?.n ?? 0) >= LABEL_PROBE_FROM ? "probe" : "set";
}

/** A keyset position in the list's order (most recent first): the last message's time and the id. */
export interface ConversationCursor {
  at: number;
  id: string;
}

export interface ConversationListRow {
  id: string;
  sessionId: string;
  sessionName: string | null;
  sessionPhone: string | null;
  phone: string;
  contactId: string | null;
  contactName: string | null;
  contactPushName: string | null;
  status: ConversationStatus;
  snoozedUntil: number | null;
  /** JSON as the list reads it; a row built from a written conversation holds the array */
  labels: string | string[];
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
  SELECT c.id, c.session_id AS "sessionId", s.name AS "sessionName", s.phone_number AS "sessionPhone",
         c.phone, c.contact_id AS "contactId", ct.name AS "contactName", ct.push_name AS "contactPushName",
         c.status, c.snoozed_until AS "snoozedUntil", c.labels,
         c.unread_count AS "unreadCount", c.last_message_at AS "lastMessageAt", c.last_read_at AS "lastReadAt", c.created_at AS "createdAt",
         c.assignee_id AS "assigneeId", u.name AS "assigneeName", u.email AS "assigneeEmail",
         m.id AS "lastId", m.direction AS "lastDirection", m.type AS "lastType", m.body AS "lastBody", m.status AS "lastStatus", m.created_at AS "lastCreatedAt",
         g.name AS "groupName", g.participants AS "groupParticipants"
  FROM conversations c
  LEFT JOIN chat_sessions s ON s.id = c.session_id AND s.workspace_id = c.workspace_id
  LEFT JOIN contacts ct ON ct.id = c.contact_id AND ct.workspace_id = c.workspace_id
  ${usersSql.joinMember("u", "c.workspace_id", "c.assignee_id")}
  LEFT JOIN messages m ON m.id = c.last_message_id AND m.workspace_id = c.workspace_id
  LEFT JOIN chat_groups g ON g.workspace_id = c.workspace_id AND g.session_id = c.session_id AND g.id = c.phone`;

/**
 * The list's filters as one condition. Each filter rides an index that starts with the
 * workspace and ends with (last_message_at, id), so a page walks the index in the list's order:
 * status, assignee, session, needs reply (a partial index of conversations whose last message
 * is inbound); a label goes through conversation_labels' primary key. The contact search (a
 * substring of name or phone) filters the rows of that walk.
 */
function whereClause(db: DB, workspaceId: string, f: ConversationFilter & { id?: string }): { sql: string; args: (string | number)[]; needsContact: boolean } {
  const parts = ["c.workspace_id = ?"];
  const args: (string | number)[] = [workspaceId];
  if (f.id) (parts.push("c.id = ?"), args.push(f.id));
  if (f.unread !== undefined) parts.push(f.unread ? "c.unread_count > 0" : "c.unread_count = 0");
  if (f.assigned !== undefined) parts.push(f.assigned ? "c.assignee_id IS NOT NULL" : "c.assignee_id IS NULL");
  if (f.assigneeId) (parts.push("c.assignee_id = ?"), args.push(f.assigneeId));
  if (f.sessionId) (parts.push("c.session_id = ?"), args.push(f.sessionId));
  if (f.status) (parts.push("c.status = ?"), args.push(f.status));
  if (f.needsReply !== undefined) parts.push(f.needsReply ? "c.last_direction = 'inbound'" : "(c.last_direction IS NULL OR c.last_direction <> 'inbound')");
  if (f.snoozed) (parts.push(f.snoozed.is ? "c.snoozed_until > ?" : "(c.snoozed_until IS NULL OR c.snoozed_until <= ?)"), args.push(f.snoozed.now));
  if (f.label) {
    parts.push(
      f.labelPlan === "probe"
        ? "EXISTS (SELECT 1 FROM conversation_labels l WHERE l.workspace_id = ? AND l.label = ? AND l.conversation_id = c.id)"
        : "c.id IN (SELECT conversation_id FROM conversation_labels WHERE workspace_id = ? AND label = ?)",
    );
    args.push(workspaceId, f.label);
  }
  if (f.q) {
    const like = likeOf(db);
    const term = termOf(f.q);
    if (f.qPlan === "set" && f.qIds) {
      parts.push(f.qIds.length ? `c.id IN (${f.qIds.map(() => "?").join(", ")})` : "1 = 0");
      args.push(...f.qIds);
    } else if (f.qPlan === "set") {
      const set = qSetSql(db, workspaceId, f.q);
      parts.push(`c.id IN (${set.sql})`);
      args.push(...set.args);
    } else {
      parts.push(`(c.phone ${like} ? ESCAPE '\\' OR ct.name ${like} ? ESCAPE '\\' OR ct.push_name ${like} ? ESCAPE '\\')`);
      args.push(term, term, term);
    }
  }
  return { sql: parts.join(" AND "), args, needsContact: !!f.q && f.qPlan !== "set" };
}

const CONTACT_JOIN = "LEFT JOIN contacts ct ON ct.id = c.contact_id AND ct.workspace_id = c.workspace_id";

/** A page of conversations with their last message, contact and assignee, most recent first. */
export async function listConversations(
  db: DB,
  workspaceId: string,
  f: ConversationFilter & { limit: number; offset: number },
): Promise<{ rows: ConversationListRow[]; total: number }> {
  const w = whereClause(db, workspaceId, f);
  const rows = await db.prepare<ConversationListRow>(`${LIST_SELECT} WHERE ${w.sql} ORDER BY c.last_message_at DESC, c.id DESC LIMIT ? OFFSET ?`).all(...w.args, f.limit, f.offset);
  const total = (await db.prepare<{ n: number }>(`SELECT count(*) AS n FROM conversations c ${w.needsContact ? CONTACT_JOIN : ""} WHERE ${w.sql}`).get(...w.args))!.n;
  return { rows, total };
}

/** The statement of a keyset page (exported so its plan can be tested). */
export function conversationsKeysetSql(db: DB, workspaceId: string, f: ConversationFilter & { before?: ConversationCursor; after?: ConversationCursor; limit: number }) {
  const w = whereClause(db, workspaceId, f);
  const args = [...w.args];
  let where = w.sql;
  // row values: both engines turn them into one range of the (…, last_message_at, id) index
  if (f.before) (where += " AND (c.last_message_at, c.id) < (?, ?)"), args.push(f.before.at, f.before.id);
  if (f.after) (where += " AND (c.last_message_at, c.id) > (?, ?)"), args.push(f.after.at, f.after.id);
  const dir = f.after ? "ASC" : "DESC";
  args.push(f.limit + 1);
  return { sql: `${LIST_SELECT} WHERE ${where} ORDER BY c.last_message_at ${dir}, c.id ${dir} LIMIT ?`, args };
}

/** A keyset page (most recent first) and whether more lie beyond it in the walked direction. */
export async function conversationsKeyset(
  db: DB,
  workspaceId: string,
  f: ConversationFilter & { before?: ConversationCursor; after?: ConversationCursor; limit: number },
): Promise<{ rows: ConversationListRow[]; hasMore: boolean }> {
  const q = conversationsKeysetSql(db, workspaceId, f);
  const rows = await db.prepare<ConversationListRow>(q.sql).all(...q.args);
  const hasMore = rows.length > f.limit;
  const page = rows.slice(0, f.limit);
  return { rows: f.after ? page.reverse() : page, hasMore };
}

/** One conversation with its last message, contact and assignee. */
export async function getConversationRow(db: DB, workspaceId: string, id: string): Promise<ConversationListRow | null> {
  const w = whereClause(db, workspaceId, { id });
  return (await db.prepare<ConversationListRow>(`${LIST_SELECT} WHERE ${w.sql}`).get(...w.args)) ?? null;
}

/** Conversations of the workspace by id, with their last message, contact and assignee (unknown ids left out). */
export async function conversationRowsByIds(db: DB, workspaceId: string, ids: string[]): Promise<ConversationListRow[]> {
  if (!ids.length) return [];
  return await db.prepare<ConversationListRow>(`${LIST_SELECT} WHERE c.workspace_id = ? AND c.id IN (${ids.map(() => "?").join(", ")})`).all(workspaceId, ...ids);
}

/** Sets the fields a member changes by hand; labels go to both the column and conversation_labels. */
export async function updateConversation(
  db: DB,
  workspaceId: string,
  id: string,
  p: { status?: ConversationStatus; snoozedUntil?: number | null; labels?: string[]; assigneeId?: string | null },
  at: number,
): Promise<void> {
  await db
    .update(conversations)
    .set({
      ...(p.status !== undefined ? { status: p.status } : {}),
      ...(p.snoozedUntil !== undefined ? { snoozedUntil: p.snoozedUntil } : {}),
      ...(p.labels !== undefined ? { labels: p.labels } : {}),
      ...(p.assigneeId !== undefined ? { assigneeId: p.assigneeId } : {}),
      updatedAt: at,
    })
    .where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
    .run();
  if (p.labels === undefined) return;
  await db.delete(conversationLabels).where(and(eq(conversationLabels.workspaceId, workspaceId), eq(conversationLabels.conversationId, id))).run();
  if (p.labels.length) await db.insert(conversationLabels).values(p.labels.map((label) => ({ workspaceId, label, conversationId: id }))).run();
}
