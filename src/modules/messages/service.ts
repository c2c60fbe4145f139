import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { assertStatusCanSend, assertWithin, planInForce } from "../billing/quota.ts";
import { findContact } from "../contacts/repo.ts";
import { commitMedia, discardMedia } from "../media/service.ts";
import { cursorPagination } from "../../http/cursor.ts";
import { remember, replay, requestHash } from "./idempotency.ts";
import type { MessageListQuery, SendBody } from "./model.ts";
import { findMessage, pageMessages, type MessageFilter } from "./repo.ts";
import { insertQueuedMessage, insertQueuedMessageNow, insertQueuedMessages, moveLastMessage, sessionForSend, touchOutboundConversation, touchOutboundConversationFor, type QueuedMessage, type SendSession } from "./send-repo.ts";
import { addUsage, usageOf } from "./usage-repo.ts";
import type { SendGroup } from "./send-batch.ts";
import { resolveSendMedia } from "./send-media.ts";
import { isRichType, resolveRich } from "./rich-send.ts";
import { isMediaKind } from "./rich-types.ts";
import { enqueueSender, senderJobKey } from "./sender.ts";
import { requireGroup } from "../groups/service.ts";
import { messageView } from "./view.ts";
import { quickReplyText } from "../quick-replies/service.ts";
import { announceScheduled, scheduleSend } from "./scheduled.ts";
import type { SendAnswer } from "./send-answer.ts";

export type { SendAnswer } from "./send-answer.ts";

type PlanInForce = Awaited<ReturnType<typeof planInForce>>;

/** How far ahead a send may be scheduled. */
export const MAX_SCHEDULE_MS = 30 * 86_400_000;

/** The time of a scheduled send: in the future and at most 30 days ahead (400 naming sendAt otherwise). */
function scheduledTime(sendAt: string, now: number): number {
  const t = Date.parse(sendAt);
  if (!(t > now)) throw errors.validation({ sendAt: "must be in the future" });
  if (t > now + MAX_SCHEDULE_MS) throw errors.validation({ sendAt: "must be at most 30 days ahead" });
  return t;
}

/** The session of a scheduled send: it must be the workspace's (404) on a plan that may send (403); it may be offline now. */
function schedulableSession(session: SendSession | null): SendSession {
  if (!session) throw errors.notFound("Session");
  assertStatusCanSend(session.subscriptionStatus);
  return session;
}

/** `YYYY-MM` of a time, UTC: the window of the monthly message quota. */
export function monthOf(t: number): string {
  if (t >= month.from && t < month.to) return month.name;
  const d = new Date(t);
  const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  month = { from, to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1), name: d.toISOString().slice(0, 7) };
  return month.name;
}
/** the month monthOf answered last, with its bounds: every send asks, nearly always for the same month */
let month = { from: 0, to: 0, name: "" };

/** A unique index refused the insert: SQLite's SQLITE_CONSTRAINT_*, PostgreSQL's 23505. */
function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.code === "string" && (e.code.startsWith("SQLITE_CONSTRAINT") || e.code === "23505")) return true;
  }
  return false;
}

/** The session a message goes through: 404 when not the workspace's, 502 when not connected, 403 when the plan blocks sending. */
function usableSession(session: SendSession | null): SendSession {
  if (!session) throw errors.notFound("Session");
  if (session.status !== "connected") throw errors.chatappUnavailable(`Session is ${session.status}, not connected`);
  assertStatusCanSend(session.subscriptionStatus);
  return session;
}

type LastMessage = { messageId: string; maxAt: number; at: number };

/**
 * Inserts a send's message. On SQLite at once on the group's held transaction (no await: one
 * per send); on PostgreSQL the group's messages go in one statement at the end of the group
 * (every statement there is a round trip under the write lock); nothing in the group reads them
 * before. A promise only when the caller must await the insert.
 */
function queueMessage(deps: Pick<AppDeps, "db">, group: SendGroup, ws: string, m: QueuedMessage): Promise<void> | undefined {
  if (deps.db.engine !== "postgres") return insertQueuedMessageNow(deps.db, ws, m) ? undefined : insertQueuedMessage(deps.db, ws, m);
  group.collect("queued-messages", { ...m, workspaceId: ws }, (rows: (QueuedMessage & { workspaceId: string })[]) => insertQueuedMessages(deps.db, rows));
}

/**
 * The conversation of a send. On SQLite the group's first send to it upserts it; the later ones
 * only move its last message, which is written once at the end of the group with the last
 * one's values. On PostgreSQL nothing is written before the group's end: there one upsert per
 * conversation (touchOutboundConversationFor) leaves what those writes would have left, in the
 * end's flight and before the group's messages, which find the conversation by its session and
 * number (its id is then ""; see insertQueuedMessages). One write of the conversation's row a
 * group instead of two, and no round trip for its id.
 */
function groupConversation(deps: Pick<AppDeps, "db">, group: SendGroup, ws: string, c: { sessionId: string; phone: string; messageId: string; at: number }): string | Promise<string> {
  const key = `conversation:${ws}:${c.sessionId}:${c.phone}`;
  if (deps.db.engine === "postgres") {
    const before = group.pending<ConversationTouch>(key);
    const touch: ConversationTouch = { sessionId: c.sessionId, phone: c.phone, messageId: c.messageId, firstAt: before?.firstAt ?? c.at, maxAt: Math.max(before?.maxAt ?? c.at, c.at), at: c.at };
    group.defer<ConversationTouch>(key, touch, (t) => touchOutboundConversationFor(deps.db, ws, t));
    return "";
  }
  if (!group.has(key)) return group.once(key, () => touchOutboundConversation(deps.db, ws, c));
  const id = group.get<string>(key);
  const maxAt = Math.max(group.pending<LastMessage>(key)?.maxAt ?? c.at, c.at);
  group.defer<LastMessage>(key, { messageId: c.messageId, maxAt, at: c.at }, (last) => moveLastMessage(deps.db, ws, id, last));
  return id;
}

type ConversationTouch = { sessionId: string; phone: string; messageId: string; firstAt: number; maxAt: number; at: number };

/**
 * PostgreSQL: what a send's group body will read, started for every send of the group before
 * the first one runs, so the group's reads go out in one flight (SendGroup.prefetch): the
 * session (unless the send read it before), the plan in force, the month's usage, and whether
 * the session's sender job is pending.
 */
function prefetchSend(deps: AppDeps, ws: string, sessionId: string, readSession: boolean) {
  return (group: SendGroup) => {
    if (readSession) group.prefetch(`session:${ws}:${sessionId}`, () => sessionForSend(deps.db, ws, sessionId));
    group.prefetch(`plan:${ws}`, () => planInForce(deps, ws));
    const period = monthOf(deps.clock.nowMs());
    group.prefetch(`usage:${ws}:${period}`, () => usageOf(deps.db, ws, period));
    group.prefetch(`sender-pending:${sessionId}`, () => deps.jobs.hasPending(senderJobKey(sessionId)));
  };
}

/**
 * The session's sender job, made unless one is pending. A pending job found by the group's
 * prefetch (under the same write lock) saves the look `enqueueSender` would make.
 */
async function ensureSender(deps: AppDeps, group: SendGroup, ws: string, sessionId: string): Promise<void> {
  const key = `sender-pending:${sessionId}`;
  if (group.prefetched(key) && (await group.once(key, () => deps.jobs.hasPending(senderJobKey(sessionId))))) return;
  await enqueueSender(deps, ws, sessionId);
}

/**
 * Accepts an outbound message: checks the session (404, 502 when not connected), the plan
 * and quota, resolves its media, and commits it as `queued` together with the job that sends
 * it. With an `Idempotency-Key`, a repeat within 24 h returns the first answer and queues nothing.
 * The transaction is group-committed with the sends of the same event-loop turn (send-batch.ts).
 */
export async function acceptSend(
  deps: AppDeps,
  caller: { workspaceId: string; actorId: string },
  input: SendBody,
  idempotencyKey?: string,
  /** an auto-reply's message carries its automation (docs/automations.md) */
  origin: { automationId?: string } = {},
): Promise<{ data: SendAnswer; replayed: boolean }> {
  const ws = caller.workspaceId;
  const hash = idempotencyKey ? requestHash("POST /messages/send", input) : "";
  if (idempotencyKey) {
    const prior = await replay(deps, ws, idempotencyKey, hash);
    if (prior) return { data: prior.data as SendAnswer, replayed: true };
  }
  const sendAt = input.sendAt === undefined ? null : scheduledTime(input.sendAt, deps.clock.now().getTime());
  const sessionCheck = sendAt === null ? usableSession : schedulableSession;
  // a quick reply becomes the body, filled for the recipient (404 when not the workspace's)
  if (input.quickReplyId) input = { ...input, body: await quickReplyText(deps, ws, input.quickReplyId, input.to) };
  // media is fetched or stored only for a session that can send; a text send checks it in its group
  const early = !isMediaKind(input.type) && !input.groupId ? null : sessionCheck(await sessionForSend(deps.db, ws, input.session_id));
  if (input.groupId) await requireGroup(deps, ws, input.session_id, input.groupId);
  // a plain text send has neither: no call (and no await) for them
  const rich = isRichType(input.type) || input.replyTo !== undefined ? await resolveRich(deps, ws, input) : null;
  const media = isMediaKind(input.type) ? await resolveSendMedia(deps, ws, input) : null;
  try {
    const data = await deps.sends.run(async (group): Promise<SendAnswer> => {
      // the session, the plan and the month's usage are read once per group transaction
      // (send-batch.ts); the group's later sends find them without an await (`known`)
      const sessionKey = `session:${ws}:${input.session_id}`;
      const session = early ?? sessionCheck(group.known<SendSession | null>(sessionKey) ?? (await group.once(sessionKey, () => sessionForSend(deps.db, ws, input.session_id))));
      const at = deps.clock.nowMs();
      const period = monthOf(at);
      const planKey = `plan:${ws}`;
      const plan = group.known<PlanInForce>(planKey) ?? (await group.once(planKey, () => planInForce(deps, ws)));
      assertStatusCanSend(plan.status);
      const usageKey = `usage:${ws}:${period}`;
      const used = group.countOf(usageKey) ?? (await group.counter(usageKey, () => usageOf(deps.db, ws, period), (n) => addUsage(deps.db, ws, period, n)));
      assertWithin(plan.limits, "messagesPerMonth", used);
      group.writing(); // nothing below refuses a send but a repeated Idempotency-Key (which has a savepoint)
      if (media?.prepared) await commitMedia(deps, media.prepared);
      const id = Bun.randomUUIDv7();
      if (sendAt !== null) {
        const answer = await scheduleSend(deps, group, ws, { id, session, input, mediaId: media?.mediaId ?? null, createdBy: caller.actorId, sendAt, at });
        if (idempotencyKey) await remember(deps, ws, idempotencyKey, hash, { statusCode: 202, data: answer });
        group.count(usageKey);
        return answer;
      }
      const conversation = groupConversation(deps, group, ws, { sessionId: session.id, phone: input.to, messageId: id, at });
      const conversationId = typeof conversation === "string" ? conversation : await conversation;
      const message: QueuedMessage = {
        id,
        sessionId: session.id,
        conversationId,
        phone: input.to,
        sessionPhone: session.phoneNumber,
        type: input.type,
        body: rich ? rich.body : (input.body ?? null),
        payload: rich?.payload ?? null,
        replyToId: rich?.replyToId ?? null,
        mediaId: media?.mediaId ?? null,
        createdBy: caller.actorId,
        automationId: origin.automationId ?? null,
        at,
      };
      const queued = queueMessage(deps, group, ws, message);
      if (queued) await queued;
      const senderKey = `sender:${ws}:${session.id}`;
      if (!group.has(senderKey)) await group.once(senderKey, () => ensureSender(deps, group, ws, session.id));
      const answer: SendAnswer = { id, status: "queued", sessionId: session.id, to: input.to, type: input.type, createdAt: new Date(at).toISOString(), sendAt: null };
      if (idempotencyKey) await remember(deps, ws, idempotencyKey, hash, { statusCode: 202, data: answer });
      group.count(usageKey);
      return answer;
    }, { savepoint: idempotencyKey !== undefined || media !== null, prepare: deps.db.engine === "postgres" ? prefetchSend(deps, ws, input.session_id, !early) : undefined });
    // the send is stored whatever happens here: a failed announcement only costs the live update
    if (data.status === "scheduled") await announceScheduled(deps, ws, data.id).catch((err) => deps.log.error("scheduled send not announced", { err }));
    return { data, replayed: false };
  } catch (err) {
    if (media?.prepared) await discardMedia(deps, media.prepared);
    // a concurrent request with the same key committed first: answer as it did
    if (idempotencyKey && isUniqueViolation(err)) {
      const prior = await replay(deps, ws, idempotencyKey, hash);
      if (prior) return { data: prior.data as SendAnswer, replayed: true };
    }
    throw err;
  }
}

/** One message of the workspace, or 404. */
export async function getMessage(deps: Pick<AppDeps, "db" | "config">, workspaceId: string, id: string, audience: "external" | "dashboard" = "dashboard") {
  const m = await findMessage(deps.db, workspaceId, id);
  if (!m) throw errors.notFound("Message");
  return messageView(deps.config, m, audience);
}

/** A keyset page of messages, newest first, with filters. */
export async function listMessages(
  deps: Pick<AppDeps, "db" | "config">,
  workspaceId: string,
  q: MessageListQuery & { conversationId?: string },
  audience: "external" | "dashboard" = "dashboard",
) {
  if (q.groupId && q.phone) throw errors.validation({ groupId: "cannot be combined with phone" });
  if (q.groupId && q.contactId) throw errors.validation({ groupId: "cannot be combined with contactId" });
  const filter: MessageFilter = { sessionId: q.sessionId, phone: q.groupId ?? q.phone, conversationId: q.conversationId, direction: q.direction, status: q.status, campaignId: q.campaignId };
  if (q.contactId) {
    const contact = await findContact(deps.db, workspaceId, q.contactId);
    // an unknown contact (or another workspace's) simply matches nothing
    if (!contact || (q.phone && q.phone !== contact.phone)) return { data: [], pagination: cursorPagination([], false, q) };
    filter.phone = contact.phone;
  }
  const { rows, hasMore } = await pageMessages(deps.db, workspaceId, filter, q);
  return {
    data: rows.map((m) => messageView(deps.config, m, audience)),
    pagination: cursorPagination(rows.map((m) => m.id), hasMore, q),
  };
}
