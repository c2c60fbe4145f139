import type { AppDeps } from "../../deps.ts";
import { can } from "../../auth/permissions.ts";
import { errors } from "../../errors.ts";
import { findMember, memberRole } from "../users/repo.ts";
import { isGroupAddress } from "../../network/group-address.ts";
import { markInboundRead } from "../messages/repo.ts";
import { cursorPagination } from "../../http/cursor.ts";
import type { ConversationListQuery, ConversationPatch } from "./model.ts";
import {
  labelPlan,
  qMatches,
  conversationsKeyset,
  findConversation,
  getConversationRow,
  listConversations,
  markConversationRead,
  setAssignee,
  updateConversation,
  type ConversationFilter,
  type ConversationListRow,
  type ConversationRow,
} from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "bus">;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** The list's one-line text of a message: its text (or caption), else its type in brackets. */
export function previewOf(type: string | null, body: string | null): string {
  const text = body?.replace(/\s+/g, " ").trim();
  if (!text) return `[${type ?? "message"}]`;
  return text.length > PREVIEW_CHARS ? text.slice(0, PREVIEW_CHARS - 1) + "…" : text;
}
const PREVIEW_CHARS = 120;

/** A conversation's keyset cursor: the time of its last message and its id. */
const cursorOf = (c: ConversationListRow) => `${Number(c.lastMessageAt)}.${c.id}`;

/** API shape of a conversation. */
export function conversationView(c: ConversationListRow) {
  const group = isGroupAddress(c.phone);
  return {
    id: c.id,
    sessionId: c.sessionId,
    session: { id: c.sessionId, name: c.sessionName, phoneNumber: c.sessionPhone },
    phone: c.phone,
    // a group conversation (docs/groups.md): its id, name and members; null for a person's
    groupId: group ? c.phone : null,
    groupName: group ? c.groupName : null,
    participants: group ? (c.groupParticipants ? (JSON.parse(c.groupParticipants) as string[]) : []) : null,
    contact: c.contactId ? { id: c.contactId, phone: c.phone, name: c.contactName, pushName: c.contactPushName } : null,
    status: c.status,
    snoozedUntil: iso(c.snoozedUntil === null ? null : Number(c.snoozedUntil)),
    labels: (typeof c.labels === "string" ? JSON.parse(c.labels) : c.labels) as string[],
    // its place in the list's order: `before` this gives the conversations after it
    cursor: cursorOf(c),
    lastMessage: c.lastId
      ? {
          id: c.lastId,
          preview: previewOf(c.lastType, c.lastBody),
          direction: c.lastDirection,
          at: iso(c.lastCreatedAt),
          type: c.lastType,
          body: c.lastBody,
          status: c.lastStatus,
          createdAt: iso(c.lastCreatedAt),
        }
      : null,
    lastMessageAt: iso(c.lastMessageAt),
    unreadCount: c.unreadCount,
    lastReadAt: iso(c.lastReadAt),
    assignee: c.assigneeId ? { id: c.assigneeId, name: c.assigneeName, email: c.assigneeEmail } : null,
    createdAt: iso(c.createdAt),
  };
}

/** The repo's filter of a list query: `assignee` me / none / a user id folds into the assignee conditions. */
function filterOf(userId: string | null, q: ConversationListQuery, now: number): ConversationFilter {
  const { assignee, before: _b, after: _a, page: _p, limit: _l, snoozed, ...rest } = q;
  const f: ConversationFilter = { ...rest, ...(snoozed === undefined ? {} : { snoozed: { now, is: snoozed } }) };
  if (assignee === "none") return { ...f, assigned: false };
  // a caller that is no user (an API key) has no conversations of its own
  if (assignee === "me") return userId ? { ...f, assigneeId: userId } : { ...f, assigned: true, assigneeId: "00000000-0000-0000-0000-000000000000" };
  if (assignee) return { ...f, assigneeId: assignee };
  return f;
}


/**
 * Conversations, most recent first: numbered pages with a total, or (with `before`/`after`)
 * a keyset page with cursors like the message lists.
 */
export async function pageConversations(deps: Deps, workspaceId: string, userId: string | null, q: ConversationListQuery) {
  const f = filterOf(userId, q, deps.clock.now().getTime());
  if (f.label) f.labelPlan = await labelPlan(deps.db, workspaceId, f.label);
  if (f.q) Object.assign(f, await qMatches(deps.db, workspaceId, f.q));
  if (q.before || q.after) {
    const { rows, hasMore } = await conversationsKeyset(deps.db, workspaceId, { ...f, before: q.before, after: q.after, limit: q.limit });
    const cursors = rows.map(cursorOf);
    return { data: rows.map(conversationView), cursor: cursorPagination(cursors, hasMore, { before: q.before && "given", after: q.after && "given", limit: q.limit }) };
  }
  const { rows, total } = await listConversations(deps.db, workspaceId, { ...f, limit: q.limit, offset: (q.page - 1) * q.limit });
  // the first page carries the cursor of its last row too, so a client can go on by keyset
  return { data: rows.map(conversationView), total };
}

/** Publishes conversation_updated with the conversation as it now is (inside the change's transaction). */
export async function publishConversationUpdated(deps: Deps, workspaceId: string, id: string): Promise<ReturnType<typeof conversationView> | null> {
  const row = await getConversationRow(deps.db, workspaceId, id);
  if (!row) return null;
  const view = conversationView(row);
  await deps.bus.publish(workspaceId, "conversation_updated", view);
  return view;
}

/** What the writer of a new message already holds besides the conversation row it wrote. */
export interface TouchedBy {
  session: { name: string; phoneNumber: string | null };
  /** the contact the message's writer found or created (null when none) */
  contact: { id: string; name: string | null; pushName: string | null } | null;
  /** the message just written, now the conversation's last */
  message: { id: string; direction: string; type: string; body: string | null; status: string; createdAt: number };
}

/**
 * conversation_updated for a conversation a new message just touched, built from what the
 * writer holds (the conversation row its upsert returned, the session, the contact, the
 * message) instead of the list's query with its joins: the same view, one keyed read of the
 * assignee when there is one. A group's conversation, or one whose contact is not the writer's,
 * is read as the list reads it.
 */
export async function publishConversationTouched(deps: Deps, workspaceId: string, c: ConversationRow, by: TouchedBy): Promise<void> {
  if (isGroupAddress(c.phone) || c.contactId !== (by.contact?.id ?? null) || c.lastMessageId !== by.message.id) {
    await publishConversationUpdated(deps, workspaceId, c.id);
    return;
  }
  const assignee = c.assigneeId ? await findMember(deps.db, workspaceId, c.assigneeId) : undefined;
  const m = by.message;
  const row: ConversationListRow = {
    id: c.id,
    sessionId: c.sessionId,
    sessionName: by.session.name,
    sessionPhone: by.session.phoneNumber,
    phone: c.phone,
    contactId: c.contactId,
    contactName: by.contact?.name ?? null,
    contactPushName: by.contact?.pushName ?? null,
    status: c.status,
    snoozedUntil: c.snoozedUntil,
    labels: c.labels,
    unreadCount: c.unreadCount,
    lastMessageAt: c.lastMessageAt,
    lastReadAt: c.lastReadAt,
    createdAt: c.createdAt,
    assigneeId: c.assigneeId,
    assigneeName: assignee?.name ?? null,
    assigneeEmail: assignee?.email ?? null,
    lastId: m.id,
    lastDirection: m.direction,
    lastType: m.type,
    lastBody: m.body,
    lastStatus: m.status,
    lastCreatedAt: m.createdAt,
    groupName: null,
    groupParticipants: null,
  };
  await deps.bus.publish(workspaceId, "conversation_updated", conversationView(row));
}

/**
 * Changes status, snooze, labels and assignee (each optional). The assignee must be a member
 * who may send messages (400 otherwise, like a user of another workspace); a snooze must lie
 * in the future.
 */
export async function patchConversation(deps: Deps, workspaceId: string, id: string, p: ConversationPatch) {
  const now = deps.clock.now().getTime();
  const snoozedUntil = p.snoozedUntil === undefined ? undefined : p.snoozedUntil === null ? null : Date.parse(p.snoozedUntil);
  if (snoozedUntil && snoozedUntil <= now) throw errors.validation({ snoozedUntil: "must be in the future" });
  const view = await deps.db.tx(async () => {
    if (!(await findConversation(deps.db, workspaceId, id))) throw errors.notFound("Conversation");
    if (p.assigneeId) await requireAssignable(deps, workspaceId, "assigneeId", p.assigneeId);
    await updateConversation(deps.db, workspaceId, id, { status: p.status, snoozedUntil, labels: p.labels, assigneeId: p.assigneeId }, now);
    return await publishConversationUpdated(deps, workspaceId, id);
  });
  return view!;
}

async function requireAssignable(deps: Deps, workspaceId: string, field: string, userId: string): Promise<void> {
  const role = await memberRole(deps.db, workspaceId, userId);
  // another workspace's user reads exactly like a missing one
  if (!role) throw errors.validation({ [field]: "is not a member of this workspace" });
  if (!can(role, "messaging")) throw errors.validation({ [field]: `cannot handle conversations (role ${role})` });
}

/** One conversation, or 404. */
export async function getConversation(deps: Deps, workspaceId: string, id: string) {
  const row = await getConversationRow(deps.db, workspaceId, id);
  if (!row) throw errors.notFound("Conversation");
  return conversationView(row);
}

/** Throws 404 unless the conversation is the workspace's. */
export async function requireConversation(deps: Deps, workspaceId: string, id: string): Promise<void> {
  if (!(await findConversation(deps.db, workspaceId, id))) throw errors.notFound("Conversation");
}

/** Marks every message of the conversation read. */
export async function readConversation(deps: Deps, workspaceId: string, id: string) {
  await requireConversation(deps, workspaceId, id);
  const at = deps.clock.now().getTime();
  const view = await deps.db.tx(async () => {
    await markConversationRead(deps.db, workspaceId, id, at);
    await markInboundRead(deps.db, workspaceId, id, at);
    return await publishConversationUpdated(deps, workspaceId, id);
  });
  if (!view) throw errors.notFound("Conversation");
  return view;
}

/** Assigns the conversation to a member who may send messages, or unassigns it (null). */
export async function assignConversation(deps: Deps, workspaceId: string, id: string, userId: string | null) {
  await requireConversation(deps, workspaceId, id);
  // the member's role is checked in the transaction of the assignment: a role changed meanwhile cannot slip in
  const view = await deps.db.tx(async () => {
    if (userId !== null) await requireAssignable(deps, workspaceId, "userId", userId);
    await setAssignee(deps.db, workspaceId, id, userId, deps.clock.now().getTime());
    return await publishConversationUpdated(deps, workspaceId, id);
  });
  if (!view) throw errors.notFound("Conversation");
  return view;
}
