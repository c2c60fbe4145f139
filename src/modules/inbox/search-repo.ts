import type { DB } from "../../db/store.ts";
import { textIndexCaughtUp } from "../messages/fts-repo.ts";

/** The words of a search: runs of letters and digits (both engines' tokenizers split on the rest). */
export function searchWords(q: string): string[] {
  return (q.normalize("NFC").match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 16);
}

/**
 * Ids of a keyset page of the workspace's messages whose text holds every word, newest first
 * (`limit + 1` at most; above `after` the oldest first). SQLite: the FTS5 index messages_fts,
 * first caught up with the messages stored since its follower last looked, walked in rowid order
 * (the order messages were stored), each match joined to its message for the workspace.
 * PostgreSQL: the GIN index on the text's tsvector, ordered by id.
 */
export async function searchMessageIds(db: DB, workspaceId: string, words: string[], c: { before?: string; after?: string; limit: number }): Promise<string[]> {
  const cursor = c.before ?? c.after;
  const dir = c.after ? "ASC" : "DESC";
  const op = c.after ? ">" : "<";
  if (db.engine === "postgres") {
    const args: (string | number)[] = [workspaceId, words.join(" ")];
    let where = "m.workspace_id = ? AND to_tsvector('simple', coalesce(m.body, '')) @@ plainto_tsquery('simple', ?)";
    if (cursor) (where += ` AND m.id ${op} ?`), args.push(cursor);
    args.push(c.limit + 1);
    const rows = await db.prepare<{ id: string }>(`SELECT m.id FROM messages m WHERE ${where} ORDER BY m.id ${dir} LIMIT ?`).all(...args);
    return rows.map((r) => r.id);
  }
  await textIndexCaughtUp(db);
  // every word quoted: a phrase of one token each, all required (FTS5's implicit AND)
  const match = words.map((w) => `"${w}"`).join(" ");
  const args: (string | number)[] = [match, workspaceId];
  let where = "messages_fts MATCH ? AND m.workspace_id = ?";
  if (cursor) (where += ` AND f.rowid ${op} (SELECT rowid FROM messages WHERE workspace_id = ? AND id = ?)`), args.push(workspaceId, cursor);
  args.push(c.limit + 1);
  const rows = await db.prepare<{ id: string }>(`SELECT m.id FROM messages_fts f JOIN messages m ON m.rowid = f.rowid WHERE ${where} ORDER BY f.rowid ${dir} LIMIT ?`).all(...args);
  return rows.map((r) => r.id);
}
