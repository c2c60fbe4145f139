import type { DB } from "../../db/store.ts";
import { usersSql } from "../users/repo.ts";

export interface NoteRow {
  id: string;
  conversationId: string;
  sessionId: string;
  body: string;
  authorId: string | null;
  authorName: string | null;
  authorEmail: string | null;
  createdAt: number;
}

const SELECT = `
  SELECT n.id, n.conversation_id AS "conversationId", c.session_id AS "sessionId", n.body, n.author_id AS "authorId",
         u.name AS "authorName", u.email AS "authorEmail", n.created_at AS "createdAt"
  FROM conversation_notes n
  JOIN conversations c ON c.id = n.conversation_id AND c.workspace_id = n.workspace_id
  ${usersSql.joinMember("u", "n.workspace_id", "n.author_id")}`;

/** Inserts a note. */
export async function insertNote(db: DB, workspaceId: string, n: { id: string; conversationId: string; authorId: string | null; body: string; at: number }): Promise<void> {
  await db
    .prepare("INSERT INTO conversation_notes (id, workspace_id, conversation_id, author_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .run(n.id, workspaceId, n.conversationId, n.authorId, n.body, n.at);
}

/** One note with its author. */
export async function getNote(db: DB, workspaceId: string, id: string): Promise<NoteRow | null> {
  return (await db.prepare<NoteRow>(`${SELECT} WHERE n.workspace_id = ? AND n.id = ?`).get(workspaceId, id)) ?? null;
}

/**
 * A keyset page of a conversation's notes in the messages' order (by id, newest first below
 * `before`, oldest first above `after`): `limit + 1` rows at most, on the thread index.
 */
export async function notesPage(db: DB, workspaceId: string, conversationId: string, c: { before?: string; after?: string; limit: number }): Promise<NoteRow[]> {
  const args: (string | number)[] = [workspaceId, conversationId];
  let where = "n.workspace_id = ? AND n.conversation_id = ?";
  if (c.before) (where += " AND n.id < ?"), args.push(c.before);
  if (c.after) (where += " AND n.id > ?"), args.push(c.after);
  const dir = c.after ? "ASC" : "DESC";
  args.push(c.limit + 1);
  return await db.prepare<NoteRow>(`${SELECT} WHERE ${where} ORDER BY n.id ${dir} LIMIT ?`).all(...args);
}

/** Moves the notes of one conversation to another (a merge of two conversations). */
export async function moveNotes(db: DB, workspaceId: string, fromId: string, intoId: string): Promise<void> {
  await db.prepare("UPDATE conversation_notes SET conversation_id = ? WHERE workspace_id = ? AND conversation_id = ?").run(intoId, workspaceId, fromId);
}
