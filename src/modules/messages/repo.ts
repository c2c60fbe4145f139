import { and, asc, desc, eq, gt, inArray, isNull, lt, notInArray, sql, type SQL } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { media } from "../media/table.ts";
import { chatSessions } from "../sessions/table.ts";
import { messages, messageUsage, type MessageStatus } from "./table.ts";

export type MessageRow = typeof messages.$inferSelect;
/** A message with the facts of its media file. */
export type MessageWithMedia = MessageRow & { mimeType: string | null; filename: string | null };

/** The session of the workspace a message is sent through. */
export function findSession(db: DB, workspaceId: string, sessionId: string) {
  return db
    .select({ id: chatSessions.id, status: chatSessions.status, phoneNumber: chatSessions.phoneNumber, lastDisconnectReason: chatSessions.lastDisconnectReason })
    .from(chatSessions)
    .where(and(eq(chatSessions.workspaceId, workspaceId), eq(chatSessions.id, sessionId)))
    .get();
}

/** Which workspace a session belongs to: driver events carry only the session id. */
export function sessionOwner(db: DB, sessionId: string) {
  return db
    .select({ workspaceId: chatSessions.workspaceId, phoneNumber: chatSessions.phoneNumber })
    .from(chatSessions)
    .where(eq(chatSessions.id, sessionId))
    .get();
}

/** Inserts a message row. */
export function insertMessage(db: DB, workspaceId: string, row: Omit<typeof messages.$inferInsert, "workspaceId">): void {
  db.insert(messages).values({ ...row, workspaceId }).run();
}

const withMedia = { m: messages, mimeType: media.mimeType, filename: media.filename };
const mediaJoin = and(eq(media.id, messages.mediaId), eq(media.workspaceId, messages.workspaceId));
const flatten = (r: { m: MessageRow; mimeType: string | null; filename: string | null }): MessageWithMedia => ({ ...r.m, mimeType: r.mimeType, filename: r.filename });

const findStmt = (db: DB) =>
  db
    .select(withMedia)
    .from(messages)
    .leftJoin(media, mediaJoin)
    .where(and(eq(messages.workspaceId, sql.placeholder("ws")), eq(messages.id, sql.placeholder("id"))))
    .prepare();
const prepared = new WeakMap<DB, ReturnType<typeof findStmt>>();

/** One message of the workspace. */
export function findMessage(db: DB, workspaceId: string, id: string): MessageWithMedia | undefined {
  let stmt = prepared.get(db);
  if (!stmt) prepared.set(db, (stmt = findStmt(db)));
  const r = stmt.get({ ws: workspaceId, id });
  return r ? flatten(r) : undefined;
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
    .select(withMedia)
    .from(messages)
    .leftJoin(media, mediaJoin)
    .where(and(...conds))
    .orderBy(c.after ? asc(messages.id) : desc(messages.id))
    .limit(c.limit + 1);
}

/**
 * A keyset page: newest first below `before`, or the oldest `limit` above `after` (returned
 * newest first). Reads `limit + 1` rows to know whether more exist; every filter combination
 * walks an index that starts with workspace_id and ends with id, so no page scans past rows.
 */
export function pageMessages(db: DB, workspaceId: string, f: MessageFilter, c: { before?: string; after?: string; limit: number }) {
  const rows = messagePageQuery(db, workspaceId, f, c).all().map(flatten);
  const hasMore = rows.length > c.limit;
  if (hasMore) rows.pop();
  if (c.after) rows.reverse();
  return { rows, hasMore };
}

/** The oldest queued message of a session: the head of its outbound queue. */
export function nextQueued(db: DB, workspaceId: string, sessionId: string): MessageRow | undefined {
  return db
    .select()
    .from(messages)
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.sessionId, sessionId), eq(messages.status, "queued")))
    .orderBy(asc(messages.id))
    .limit(1)
    .get();
}

/** Sessions with queued messages, across workspaces (the sender's recovery sweep). */
export function sessionsWithQueued(db: DB): { workspaceId: string; sessionId: string }[] {
  return db
    .selectDistinct({ workspaceId: messages.workspaceId, sessionId: messages.sessionId })
    .from(messages)
    .where(eq(messages.status, "queued"))
    .all();
}

/** Takes a queued message for one send attempt; `prevToken` is the token of an attempt left by a crash. */
export function claimSend(db: DB, workspaceId: string, id: string, token: string, prevToken: string | null, at: number): boolean {
  const r = db
    .update(messages)
    .set({ sendingToken: token, attempts: sql`${messages.attempts} + 1`, updatedAt: at })
    .where(
      and(
        eq(messages.workspaceId, workspaceId),
        eq(messages.id, id),
        eq(messages.status, "queued"),
        prevToken === null ? isNull(messages.sendingToken) : eq(messages.sendingToken, prevToken),
      ),
    )
    .returning({ id: messages.id })
    .all();
  return r.length === 1;
}

const ofAttempt = (workspaceId: string, id: string, token: string) =>
  and(eq(messages.workspaceId, workspaceId), eq(messages.id, id), eq(messages.sendingToken, token), eq(messages.status, "queued"));

/** Records the network's acceptance of an attempt. */
export function markSent(db: DB, workspaceId: string, id: string, token: string, networkMessageId: string, at: number): boolean {
  const r = db
    .update(messages)
    .set({ status: "sent", networkMessageId, sendingToken: null, nextAttemptAt: null, sentAt: at, updatedAt: at })
    .where(ofAttempt(workspaceId, id, token))
    .returning({ id: messages.id })
    .all();
  return r.length === 1;
}

/** Puts an attempt that failed transiently back in the queue until `nextAttemptAt`. */
export function markRetry(db: DB, workspaceId: string, id: string, token: string, nextAttemptAt: number, err: { code: string; message: string }, at: number): void {
  db.update(messages)
    .set({ sendingToken: null, nextAttemptAt, errorCode: err.code, errorMessage: err.message, updatedAt: at })
    .where(ofAttempt(workspaceId, id, token))
    .run();
}

/** Gives an attempt back uncounted: the session was not connected, so nothing reached the network. */
export function releaseClaim(db: DB, workspaceId: string, id: string, token: string, at: number): void {
  db.update(messages)
    .set({ sendingToken: null, attempts: sql`max(${messages.attempts} - 1, 0)`, updatedAt: at })
    .where(ofAttempt(workspaceId, id, token))
    .run();
}

/**
 * Fails every queued message of a session at once (it ended for good), except the ones whose
 * attempt is in flight in this process (their outcome is still coming). Returns the failed rows.
 */
export function failQueuedOfSession(db: DB, workspaceId: string, sessionId: string, except: string[], err: { code: string; message: string }, at: number) {
  return db
    .update(messages)
    .set({ status: "failed", sendingToken: null, nextAttemptAt: null, errorCode: err.code, errorMessage: err.message, failedAt: at, updatedAt: at })
    .where(
      and(
        eq(messages.workspaceId, workspaceId),
        eq(messages.sessionId, sessionId),
        eq(messages.status, "queued"),
        except.length ? notInArray(messages.id, except) : undefined,
      ),
    )
    .returning({ id: messages.id, workspaceId: messages.workspaceId, sessionId: messages.sessionId, phone: messages.phone })
    .all();
}

/** Fails an outbound message for good. */
export function markFailed(db: DB, workspaceId: string, id: string, token: string, err: { code: string; message: string }, at: number): boolean {
  const r = db
    .update(messages)
    .set({ status: "failed", sendingToken: null, nextAttemptAt: null, errorCode: err.code, errorMessage: err.message, failedAt: at, updatedAt: at })
    .where(ofAttempt(workspaceId, id, token))
    .returning({ id: messages.id })
    .all();
  return r.length === 1;
}

/** The message a network id refers to, in one session. */
export function findByNetworkId(db: DB, workspaceId: string, sessionId: string, networkMessageId: string, direction: "outbound" | "inbound") {
  return db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.workspaceId, workspaceId),
        eq(messages.sessionId, sessionId),
        eq(messages.networkMessageId, networkMessageId),
        eq(messages.direction, direction),
      ),
    )
    .get();
}

/** Applies a receipt's new status and times (the caller decided it moves forward). */
export function setReceiptStatus(db: DB, workspaceId: string, id: string, from: MessageStatus[], set: { status: "delivered" | "read"; deliveredAt: number; readAt: number | null; at: number }): boolean {
  const r = db
    .update(messages)
    .set({ status: set.status, deliveredAt: set.deliveredAt, readAt: set.readAt, updatedAt: set.at })
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.id, id), inArray(messages.status, from)))
    .returning({ id: messages.id })
    .all();
  return r.length === 1;
}

/** Marks the unread inbound messages of a conversation read. */
export function markInboundRead(db: DB, workspaceId: string, conversationId: string, at: number): void {
  db.update(messages)
    .set({ readAt: at, updatedAt: at })
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.conversationId, conversationId), eq(messages.direction, "inbound"), isNull(messages.readAt)))
    .run();
}

/** Outbound messages accepted in a UTC month (`YYYY-MM`). */
export function usageOf(db: DB, workspaceId: string, period: string): number {
  return (
    db
      .select({ n: messageUsage.outbound })
      .from(messageUsage)
      .where(and(eq(messageUsage.workspaceId, workspaceId), eq(messageUsage.period, period)))
      .get()?.n ?? 0
  );
}

/** Counts accepted outbound messages against the month's quota. */
export function addUsage(db: DB, workspaceId: string, period: string, n: number): void {
  db.insert(messageUsage)
    .values({ workspaceId, period, outbound: n })
    .onConflictDoUpdate({ target: [messageUsage.workspaceId, messageUsage.period], set: { outbound: sql`${messageUsage.outbound} + ${n}` } })
    .run();
}
