import { and, asc, desc, eq, getTableColumns, gt, inArray, isNull, lt, notInArray, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { anyOf, anyOfArg } from "../../db/any-of.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { firstUse } from "../../memo.ts";
import { media } from "../media/table.ts";
import { chatSessions } from "../sessions/table.ts";
import { messages, type MessageStatus } from "./table.ts";

export type MessageRow = typeof messages.$inferSelect;
/** A message with the facts of its media file. */
export type MessageWithMedia = MessageRow & { mimeType: string | null; filename: string | null };

const sessionStmt = preparedOnce((db) =>
  db
    .select({
      id: chatSessions.id,
      status: chatSessions.status,
      phoneNumber: chatSessions.phoneNumber,
      lastDisconnectReason: chatSessions.lastDisconnectReason,
      sendPausedUntil: chatSessions.sendPausedUntil,
      sendPauseReason: chatSessions.sendPauseReason,
    })
    .from(chatSessions)
    .where(and(eq(chatSessions.workspaceId, sql.placeholder("ws")), eq(chatSessions.id, sql.placeholder("id"))))
    .prepare(),
);

/** The session of the workspace a message is sent through, with the pause of its queue (send-pause.ts). */
export async function findSession(db: DB, workspaceId: string, sessionId: string) {
  return await sessionStmt(db).get({ ws: workspaceId, id: sessionId });
}

const ownerStmt = preparedOnce((db) =>
  db
    .select({ workspaceId: chatSessions.workspaceId, name: chatSessions.name, phoneNumber: chatSessions.phoneNumber, groups: chatSessions.groups })
    .from(chatSessions)
    .where(eq(chatSessions.id, sql.placeholder("id")))
    .prepare(),
);

/** Which workspace a session belongs to (and whether it keeps group messages): driver events carry only the session id. */
export async function sessionOwner(db: DB, sessionId: string) {
  return await ownerStmt(db).get({ id: sessionId });
}

/** Inserts a message row (its text reaches the search index after the commit: fts-repo.ts). */
export async function insertMessage(db: DB, workspaceId: string, row: Omit<typeof messages.$inferInsert, "workspaceId">): Promise<void> {
  await insertStmt(db).run(messageParams({ ...row, workspaceId }));
}

/**
 * `status = 'queued'` written as a literal, never a bound parameter: only then can SQLite use
 * the partial queue index (`WHERE status = 'queued'`) instead of walking every message of the
 * session (a drain slowed down with the session's history).
 */
// made on first use, not at import: reading a column builds the table's columns (db/lazy-table.ts)
export const isQueued = firstUse((): SQL => sql`${messages.status} = 'queued'`);

/**
 * A queued message of the workspace, in statements that find their rows by id (a claim, an
 * attempt's outcome, a give-back): both checks written so that no index can take them as a
 * condition, leaving the ids' key the only way in; they filter the rows the ids found.
 * PostgreSQL plans a young table (not analysed yet: autovacuum's first ANALYZE comes within a
 * minute or so) with default selectivities, believes `workspace_id = ?` (and `status =
 * 'queued'`) match a row or two, and took the status, queue or creation index for them: each such
 * statement walked every queued message of the workspace (7-27 ms at 20,000-30,000 queued, under
 * the store's write lock). Neither column is ever null, so `coalesce` changes nothing but that.
 */
export const queuedOfWorkspace = (workspaceId: string | Placeholder) =>
  sql`coalesce(${messages.workspaceId}, '') = ${workspaceId} AND coalesce(${messages.status}, '') = 'queued'`;
/** queuedOfWorkspace in raw SQL, for a table aliased `alias` (or unaliased); its `?` is the workspace id. */
export const queuedOfWorkspaceSql = (alias?: string) => {
  const a = alias ? `${alias}.` : "";
  return `coalesce(${a}workspace_id, '') = ? AND coalesce(${a}status, '') = 'queued'`;
};

type MessageInsert = typeof messages.$inferInsert;
const columnsOf = firstUse(() => Object.entries(getTableColumns(messages)));
// one prepared INSERT naming every column; a value left out takes the column's default (or null)
const insertStmt = preparedOnce((db) =>
  db
    .insert(messages)
    .values(Object.fromEntries(columnsOf().map(([k]) => [k, sql.placeholder(k)])) as unknown as MessageInsert)
    .prepare(),
);
function messageParams(row: MessageInsert): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, col] of columnsOf()) out[k] = row[k as keyof MessageInsert] ?? (col.hasDefault ? col.default : null) ?? null;
  return out;
}

const withMedia = firstUse(() => ({ m: messages, mimeType: media.mimeType, filename: media.filename }));
const mediaJoin = firstUse(() => and(eq(media.id, messages.mediaId), eq(media.workspaceId, messages.workspaceId))!);
const flatten = (r: { m: MessageRow; mimeType: string | null; filename: string | null }): MessageWithMedia => ({ ...r.m, mimeType: r.mimeType, filename: r.filename });

const findStmt = preparedOnce((db) =>
  db
    .select(withMedia())
    .from(messages)
    .leftJoin(media, mediaJoin())
    .where(and(eq(messages.workspaceId, sql.placeholder("ws")), eq(messages.id, sql.placeholder("id"))))
    .prepare(),
);

/** One message of the workspace. */
export async function findMessage(db: DB, workspaceId: string, id: string): Promise<MessageWithMedia | undefined> {
  const r = await findStmt(db).get({ ws: workspaceId, id });
  return r ? flatten(r) : undefined;
}

/** Messages of the workspace by id (any order; unknown ids are left out). */
export async function messagesByIds(db: DB, workspaceId: string, ids: string[]): Promise<MessageWithMedia[]> {
  if (!ids.length) return [];
  const rows = await db.select(withMedia()).from(messages).leftJoin(media, mediaJoin()).where(and(eq(messages.workspaceId, workspaceId), inArray(messages.id, ids))).all();
  return rows.map(flatten);
}

export interface MessageFilter {
  sessionId?: string;
  phone?: string;
  conversationId?: string;
  direction?: "outbound" | "inbound";
  status?: MessageStatus;
  campaignId?: string;
}

/** The query of one keyset page (exposed so tests can check its plan). */
export function messagePageQuery(db: DB, workspaceId: string, f: MessageFilter, c: { before?: string; after?: string; limit: number }) {
  const conds: (SQL | undefined)[] = [
    eq(messages.workspaceId, workspaceId),
    f.sessionId ? eq(messages.sessionId, f.sessionId) : undefined,
    f.phone ? eq(messages.phone, f.phone) : undefined,
    f.conversationId ? eq(messages.conversationId, f.conversationId) : undefined,
    f.direction ? eq(messages.direction, f.direction) : undefined,
    f.status ? eq(messages.status, f.status) : undefined,
    f.campaignId ? eq(messages.campaignId, f.campaignId) : undefined,
    c.before ? lt(messages.id, c.before) : undefined,
    c.after ? gt(messages.id, c.after) : undefined,
  ];
  return db
    .select(withMedia())
    .from(messages)
    .leftJoin(media, mediaJoin())
    .where(and(...conds))
    .orderBy(c.after ? asc(messages.id) : desc(messages.id))
    .limit(c.limit + 1);
}

/**
 * A keyset page: newest first below `before`, or the oldest `limit` above `after` (returned
 * newest first). Reads `limit + 1` rows to know whether more exist; every filter combination
 * walks an index that starts with workspace_id and ends with id, so no page scans past rows.
 */
export async function pageMessages(db: DB, workspaceId: string, f: MessageFilter, c: { before?: string; after?: string; limit: number }) {
  const rows = (await messagePageQuery(db, workspaceId, f, c).all()).map(flatten);
  const hasMore = rows.length > c.limit;
  if (hasMore) rows.pop();
  if (c.after) rows.reverse();
  return { rows, hasMore };
}

/**
 * A queued message may be taken unless its campaign is paused (docs/contacts-and-campaigns.md: a paused campaign holds
 * what it already queued; resume lets it go). An attempt a crash cut short (a sending token)
 * is finished with its client id whatever the campaign does now. A cancelled campaign fails
 * its queued messages when it is cancelled; one that comes back to the queue afterwards (a
 * transient failure of an attempt under way then) goes out rather than wait for ever.
 */
export const takeable = firstUse(
  (): SQL => sql`(${messages.campaignId} IS NULL OR ${messages.sendingToken} IS NOT NULL
  OR NOT EXISTS (SELECT 1 FROM campaigns k WHERE k.id = ${messages.campaignId} AND k.status IN ('paused', 'scheduled')))`,
);

/**
 * The queue head's keys are bound as `cast(? as text)` (the same text) and its LIMIT is written
 * as a literal: a bare `?` in either makes SQLite (3.54, in Bun) plan this ORDER BY read over
 * the partial queue index again at every new binding, 4-5x the cost of the read itself (16 µs
 * against 3.5 µs) on the drain's hottest query. (drizzle binds a number LIMIT as a parameter.)
 */
export const boundText = (name: string) => sql`cast(${sql.placeholder(name)} as text)`;
const LIMIT_ONE = sql.raw("1") as unknown as number;

const headStmt = preparedOnce((db) =>
  db
    .select()
    .from(messages)
    .where(and(eq(messages.workspaceId, boundText("ws")), eq(messages.sessionId, boundText("session")), isQueued(), takeable()))
    .orderBy(asc(messages.id))
    .limit(LIMIT_ONE)
    .prepare(),
);

/** The oldest queued message of a session that may go now (`takeable`): the head of its outbound queue. */
export async function nextQueued(db: DB, workspaceId: string, sessionId: string): Promise<MessageRow | undefined> {
  return await headStmt(db).get({ ws: workspaceId, session: sessionId });
}

/** Sessions with queued messages, across workspaces (the sender's recovery sweep). */
export async function sessionsWithQueued(db: DB): Promise<{ workspaceId: string; sessionId: string }[]> {
  // plain SQL: the server's start runs this sweep once, cold, while its first requests come in,
  // and building it with drizzle's query builder the first time cost more than the read.
  // Both engines walk the queue index from one session to the next (a recursive skip over its
  // (workspace, session) prefix: a read or two per session). DISTINCT read every queued message:
  // 137 ms at 30,000 queued on PostgreSQL; on SQLite 6 ms per 100,000 queued, on the event loop,
  // every 30 s (the sweep's period), which a send load that outruns the sender's pacing reaches
  // in seconds (0.02 ms now at 200,000).
  return await db.prepare<{ workspaceId: string; sessionId: string }>(db.engine === "postgres" ? SESSIONS_WITH_QUEUED_PG : SESSIONS_WITH_QUEUED_SQLITE).all();
}

// SQLite: a row value `(workspace_id, session_id) > (?, ?)` bounds only the index's first column,
// so the next session is looked for in the same workspace first, then in the next workspace
export const SESSIONS_WITH_QUEUED_SQLITE = `WITH RECURSIVE s(w, sid) AS (
    SELECT * FROM (SELECT workspace_id, session_id FROM messages WHERE status = 'queued' ORDER BY workspace_id, session_id LIMIT 1)
    UNION ALL
    SELECT m.workspace_id, m.session_id FROM s JOIN messages m ON m.rowid = coalesce(
      (SELECT rowid FROM messages WHERE status = 'queued' AND workspace_id = s.w AND session_id > s.sid ORDER BY workspace_id, session_id LIMIT 1),
      (SELECT rowid FROM messages WHERE status = 'queued' AND workspace_id > s.w ORDER BY workspace_id, session_id LIMIT 1))
  )
  SELECT w AS "workspaceId", sid AS "sessionId" FROM s`;
const SESSIONS_WITH_QUEUED_PG = `WITH RECURSIVE s(w, sid) AS (
    (SELECT workspace_id, session_id FROM messages WHERE status = 'queued' ORDER BY workspace_id, session_id LIMIT 1)
    UNION ALL
    SELECT n.workspace_id, n.session_id FROM s, LATERAL (
      SELECT workspace_id, session_id FROM messages
      WHERE status = 'queued' AND (workspace_id, session_id) > (s.w, s.sid)
      ORDER BY workspace_id, session_id LIMIT 1) n
  )
  SELECT w AS "workspaceId", sid AS "sessionId" FROM s`;

const claimStmts = preparedOnce((db) => {
  const claim = (prev: SQL) =>
    db
      .update(messages)
      .set({ sendingToken: sql.placeholder("token") as unknown as string, attempts: sql`${messages.attempts} + 1`, updatedAt: sql.placeholder("at") as unknown as number })
      .where(and(eq(messages.id, sql.placeholder("id")), queuedOfWorkspace(sql.placeholder("ws")), prev))
      .returning({ id: messages.id })
      .prepare();
  return { fresh: claim(isNull(messages.sendingToken)), resumed: claim(eq(messages.sendingToken, sql.placeholder("prev"))) };
});

/** Takes a queued message for one send attempt; `prevToken` is the token of an attempt left by a crash. */
export async function claimSend(db: DB, workspaceId: string, id: string, token: string, prevToken: string | null, at: number): Promise<boolean> {
  const stmts = claimStmts(db);
  const r = prevToken === null ? await stmts.fresh.all({ ws: workspaceId, id, token, at }) : await stmts.resumed.all({ ws: workspaceId, id, token, at, prev: prevToken });
  return r.length === 1;
}

const ofAttempt = (workspaceId: string | Placeholder, id: string | Placeholder, token: string | Placeholder) =>
  and(eq(messages.id, id), queuedOfWorkspace(workspaceId), eq(messages.sendingToken, token));

const sentStmt = preparedOnce((db) =>
  db
    .update(messages)
    .set({
      status: "sent",
      networkMessageId: sql.placeholder("nid") as unknown as string,
      sendingToken: null,
      nextAttemptAt: null,
      sentAt: sql.placeholder("at") as unknown as number,
      updatedAt: sql.placeholder("at") as unknown as number,
    })
    .where(ofAttempt(sql.placeholder("ws"), sql.placeholder("id"), sql.placeholder("token")))
    .returning({ id: messages.id })
    .prepare(),
);

/** Records the network's acceptance of an attempt. */
export async function markSent(db: DB, workspaceId: string, id: string, token: string, networkMessageId: string, at: number): Promise<boolean> {
  return (await sentStmt(db).all({ ws: workspaceId, id, token, nid: networkMessageId, at })).length === 1;
}

/** Puts an attempt that failed transiently back in the queue until `nextAttemptAt`. */
export async function markRetry(db: DB, workspaceId: string, id: string, token: string, nextAttemptAt: number, err: { code: string; message: string }, at: number): Promise<void> {
  await db
    .update(messages)
    .set({ sendingToken: null, nextAttemptAt, errorCode: err.code, errorMessage: err.message, updatedAt: at })
    .where(ofAttempt(workspaceId, id, token))
    .run();
}

/**
 * Fails every queued message of a session at once (it ended for good), except the ones whose
 * attempt is in flight in this process (their outcome is still coming). Returns the failed rows.
 */
export async function failQueuedOfSession(db: DB, workspaceId: string, sessionId: string, except: string[], err: { code: string; message: string }, at: number) {
  return await db
    .update(messages)
    .set({ status: "failed", sendingToken: null, nextAttemptAt: null, errorCode: err.code, errorMessage: err.message, failedAt: at, updatedAt: at })
    .where(
      and(
        eq(messages.workspaceId, workspaceId),
        eq(messages.sessionId, sessionId),
        isQueued(),
        except.length ? notInArray(messages.id, except) : undefined,
      ),
    )
    .returning({ id: messages.id, workspaceId: messages.workspaceId, sessionId: messages.sessionId, phone: messages.phone })
    .all();
}

/** Fails an outbound message for good. */
export async function markFailed(db: DB, workspaceId: string, id: string, token: string, err: { code: string; message: string }, at: number): Promise<boolean> {
  const r = await db
    .update(messages)
    .set({ status: "failed", sendingToken: null, nextAttemptAt: null, errorCode: err.code, errorMessage: err.message, failedAt: at, updatedAt: at })
    .where(ofAttempt(workspaceId, id, token))
    .returning({ id: messages.id })
    .all();
  return r.length === 1;
}

const byNetworkIdStmt = preparedOnce((db) =>
  db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.workspaceId, sql.placeholder("ws")),
        eq(messages.sessionId, sql.placeholder("session")),
        eq(messages.networkMessageId, sql.placeholder("nid")),
        eq(messages.direction, sql.placeholder("direction")),
      ),
    )
    .prepare(),
);

/** The message a network id refers to, in one session. */
export async function findByNetworkId(db: DB, workspaceId: string, sessionId: string, networkMessageId: string, direction: "outbound" | "inbound") {
  return await byNetworkIdStmt(db).get({ ws: workspaceId, session: sessionId, nid: networkMessageId, direction });
}

/**
 * Whether an inbound message with this network id is stored, and as what: nothing, a
 * placeholder waiting for its content, or stored. The common answer (nothing) costs one index
 * probe and no row: the whole row is read only for a placeholder.
 */
export async function inboundCopy(db: DB, workspaceId: string, sessionId: string, networkMessageId: string): Promise<{ errorCode: string | null } | undefined> {
  return await db
    .prepare<{ errorCode: string | null }>(
      `SELECT error_code AS "errorCode" FROM messages WHERE workspace_id = ? AND session_id = ? AND network_message_id = ? AND direction = 'inbound' LIMIT 1`,
    )
    .get(workspaceId, sessionId, networkMessageId);
}

/**
 * `inboundCopy` for several network ids of one session in one statement: the stored inbound
 * ones, by network id (a message the group's items are about to store, read once for the group).
 */
export async function inboundCopies(db: DB, workspaceId: string, sessionId: string, networkMessageIds: string[]): Promise<Map<string, { errorCode: string | null }>> {
  // an index probe per id on PostgreSQL, not a scan of the session's messages (see anyOf)
  const rows = await db
    .prepare<{ nid: string; errorCode: string | null }>(
      `SELECT network_message_id AS nid, error_code AS "errorCode" FROM messages
       WHERE workspace_id = ? AND session_id = ? AND network_message_id ${anyOf(db)} AND direction = 'inbound'`,
    )
    .all(workspaceId, sessionId, anyOfArg(db, networkMessageIds));
  const out = new Map<string, { errorCode: string | null }>();
  // a stored copy wins over a placeholder (as `inboundCopy` answers any one row, a final one is what refuses a repeat)
  for (const r of rows) if (!out.has(r.nid) || r.errorCode === null) out.set(r.nid, { errorCode: r.errorCode });
  return out;
}

/** Moves a conversation's messages to another conversation (two conversations of one person merged). */
export async function moveConversationMessages(db: DB, workspaceId: string, fromConversationId: string, toConversationId: string): Promise<void> {
  await db
    .update(messages)
    .set({ conversationId: toConversationId })
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.conversationId, fromConversationId)))
    .run();
}

/** Rewrites the contact's address of every message from one phone (a LID) to another; returns how many. */
export async function setMessagesPhone(db: DB, workspaceId: string, fromPhone: string, toPhone: string, at: number): Promise<number> {
  const r = await db
    .update(messages)
    .set({ phone: toPhone, updatedAt: at })
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.phone, fromPhone)))
    .run();
  return r.changes;
}

/** A group member known by LID turned out to be a phone number: their group messages name the number. */
export async function setParticipantPhone(db: DB, workspaceId: string, fromAddress: string, toPhone: string, at: number): Promise<number> {
  const r = await db
    .update(messages)
    .set({ participant: toPhone, updatedAt: at })
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.participant, fromAddress)))
    .run();
  return r.changes;
}

/** An inbound message's content replaced: a placeholder of a message that could not be decrypted, by the copy that could. */
export async function replaceInboundContent(
  db: DB,
  workspaceId: string,
  id: string,
  c: { type: MessageRow["type"]; body: string | null; payload: string | null; mediaId: string | null; at: number },
): Promise<void> {
  await db
    .update(messages)
    .set({ type: c.type, body: c.body, payload: c.payload, mediaId: c.mediaId, errorCode: null, errorMessage: null, updatedAt: c.at })
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.id, id), eq(messages.direction, "inbound")))
    .run();
}

const receiptStmts = preparedOnce((db) => {
  const move = (from: MessageStatus[]) =>
    db
      .update(messages)
      .set({
        status: sql.placeholder("status") as unknown as "delivered",
        deliveredAt: sql.placeholder("deliveredAt") as unknown as number,
        readAt: sql.placeholder("readAt") as unknown as number,
        updatedAt: sql.placeholder("at") as unknown as number,
      })
      .where(and(eq(messages.workspaceId, sql.placeholder("ws")), eq(messages.id, sql.placeholder("id")), inArray(messages.status, from)))
      .returning({ id: messages.id })
      .prepare();
  return new Map<string, ReturnType<typeof move>>([
    ["sent", move(["sent"])],
    ["sent,delivered", move(["sent", "delivered"])],
  ]);
});

/** Applies a receipt's new status and times (the caller decided it moves forward). */
export async function setReceiptStatus(db: DB, workspaceId: string, id: string, from: MessageStatus[], set: { status: "delivered" | "read"; deliveredAt: number; readAt: number | null; at: number }): Promise<boolean> {
  const params = { ws: workspaceId, id, status: set.status, deliveredAt: set.deliveredAt, readAt: set.readAt, at: set.at };
  const stmt = receiptStmts(db).get(from.join(","));
  const r = stmt
    ? await stmt.all(params)
    : await db
        .update(messages)
        .set({ status: set.status, deliveredAt: set.deliveredAt, readAt: set.readAt, updatedAt: set.at })
        .where(and(eq(messages.workspaceId, workspaceId), eq(messages.id, id), inArray(messages.status, from)))
        .returning({ id: messages.id })
        .all();
  return r.length === 1;
}

/** Marks the unread inbound messages of a conversation read. */
export async function markInboundRead(db: DB, workspaceId: string, conversationId: string, at: number): Promise<void> {
  await db
    .update(messages)
    .set({ readAt: at, updatedAt: at })
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.conversationId, conversationId), eq(messages.direction, "inbound"), isNull(messages.readAt)))
    .run();
}

/** Whether the number sent the workspace an inbound message before `messageId` (any session): a contact's first message has none. */
export async function hasEarlierInbound(db: DB, workspaceId: string, phone: string, messageId: string): Promise<boolean> {
  const row = await db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.phone, phone), lt(messages.id, messageId), eq(messages.direction, "inbound")))
    .limit(1)
    .get();
  return !!row;
}
