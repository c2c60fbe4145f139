import type { AppDeps } from "../../deps.ts";
import { can } from "../../auth/permissions.ts";
import { errors } from "../../errors.ts";
import { memberRole } from "../users/repo.ts";
import { isGroupAddress } from "../../network/group-address.ts";
import { markInboundRead } from "../messages/repo.ts";
import {
  findConversation,
  getConversationRow,
  listConversations,
  markConversationRead,
  setAssignee,
  type ConversationFilter,
  type ConversationListRow,
} from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock">;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** API shape of a conversation. */
export function conversationView(c: ConversationListRow) {
  const group = isGroupAddress(c.phone);
  return {
    id: c.id,
    sessionId: c.sessionId,
    phone: c.phone,
    // a group conversation (docs/groups.md): its id, name and members; null for a person's
    groupId: group ? c.phone : null,
    groupName: group ? c.groupName : null,
    participants: group ? (c.groupParticipants ? (JSON.parse(c.groupParticipants) as string[]) : []) : null,
    contact: c.contactId ? { id: c.contactId, phone: c.phone, name: c.contactName, pushName: c.contactPushName } : null,
    lastMessage: c.lastId
      ? { id: c.lastId, direction: c.lastDirection, type: c.lastType, body: c.lastBody, status: c.lastStatus, createdAt: iso(c.lastCreatedAt) }
      : null,
    lastMessageAt: iso(c.lastMessageAt),
    unreadCount: c.unreadCount,
    lastReadAt: iso(c.lastReadAt),
    assignee: c.assigneeId ? { id: c.assigneeId, name: c.assigneeName, email: c.assigneeEmail } : null,
    createdAt: iso(c.createdAt),
  };
}

/** A page of conversations, most recent first. */
export async function pageConversations(deps: Deps, workspaceId: string, q: ConversationFilter & { page: number; limit: number }) {
  const { rows, total } = await listConversations(deps.db, workspaceId, { ...q, offset: (q.page - 1) * q.limit });
  return { data: rows.map(conversationView), total };
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
  await deps.db.tx(async () => {
    await markConversationRead(deps.db, workspaceId, id, at);
    await markInboundRead(deps.db, workspaceId, id, at);
  });
  return getConversation(deps, workspaceId, id);
}

/** Assigns the conversation to a member who may send messages, or unassigns it (null). */
export async function assignConversation(deps: Deps, workspaceId: string, id: string, userId: string | null) {
  await requireConversation(deps, workspaceId, id);
  // the member's role is checked in the transaction of the assignment: a role changed meanwhile cannot slip in
  await deps.db.tx(async () => {
    if (userId !== null) {
      const role = await memberRole(deps.db, workspaceId, userId);
      // another workspace's user reads exactly like a missing one
      if (!role) throw errors.validation({ userId: "is not a member of this workspace" });
      if (!can(role, "messaging")) throw errors.validation({ userId: `cannot handle conversations (role ${role})` });
    }
    await setAssignee(deps.db, workspaceId, id, userId, deps.clock.now().getTime());
  });
  return getConversation(deps, workspaceId, id);
}
