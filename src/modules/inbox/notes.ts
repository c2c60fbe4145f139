import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { cursorPagination } from "../../http/cursor.ts";
import { listMessages } from "../messages/service.ts";
import type { MessageView } from "../messages/view.ts";
import { getNote, insertNote, notesPage, type NoteRow } from "./notes-repo.ts";
import { findConversation } from "./repo.ts";
import { publishConversationUpdated } from "./service.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "bus" | "config">;
const iso = (t: number) => new Date(Number(t)).toISOString();

/** API shape of an internal note in a thread. */
export function noteView(n: NoteRow) {
  return {
    id: n.id,
    conversationId: n.conversationId,
    sessionId: n.sessionId,
    type: "note" as const,
    body: n.body,
    author: n.authorId ? { id: n.authorId, name: n.authorName, email: n.authorEmail } : null,
    createdAt: iso(n.createdAt),
  };
}
export type NoteView = ReturnType<typeof noteView>;

/**
 * Writes an internal note into a conversation's thread. It is stored apart from the messages:
 * the sender, receipts, webhooks and the message lists never see it.
 */
export async function addNote(deps: Deps, workspaceId: string, conversationId: string, authorId: string | null, body: string): Promise<NoteView> {
  const id = Bun.randomUUIDv7();
  const at = deps.clock.now().getTime();
  const row = await deps.db.tx(async () => {
    if (!(await findConversation(deps.db, workspaceId, conversationId))) throw errors.notFound("Conversation");
    await insertNote(deps.db, workspaceId, { id, conversationId, authorId, body, at });
    // the dashboards showing the conversation learn that its thread changed
    await publishConversationUpdated(deps, workspaceId, conversationId);
    return await getNote(deps.db, workspaceId, id);
  });
  return noteView(row!);
}

/**
 * A keyset page of a conversation's thread: its messages and notes merged by id (both
 * UUIDv7), newest first, with the message lists' cursors.
 */
export async function threadPage(deps: Deps, workspaceId: string, conversationId: string, q: { before?: string; after?: string; limit: number }) {
  const msgs = await listMessages(deps, workspaceId, { ...q, conversationId });
  const notes = await notesPage(deps.db, workspaceId, conversationId, q);
  const notesMore = notes.length > q.limit;
  const items: (MessageView | NoteView)[] = [...msgs.data, ...notes.slice(0, q.limit).map(noteView)];
  items.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  // below `before` the newest `limit` are next; above `after` the oldest `limit`
  const page = q.after ? items.slice(-q.limit) : items.slice(0, q.limit);
  const hasMore = items.length > q.limit || msgs.pagination.hasMore || notesMore;
  return { data: page, pagination: cursorPagination(page.map((i) => i.id), hasMore, q) };
}
