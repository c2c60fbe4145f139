import type { DB } from "../../db/store.ts";
import { oncePer } from "../../db/prepared.ts";

// The message search index on SQLite (the FTS5 table `messages_fts`, external content over
// messages.body, keyed by the messages' rowid). Its rows for new messages are written here, by
// every code path that inserts messages, in the inserting transaction: never by a trigger, so a
// group of messages is indexed by one statement after the group's last savepoint (FTS5 writes its
// pending terms at every savepoint; a trigger's statement opens one). Deletes and edits of a
// message's text keep their triggers. PostgreSQL indexes the text with the row itself (a GIN
// expression index): nothing to do there.

const stmts = oncePer((db: DB) => ({
  one: db.prepare("INSERT INTO messages_fts(rowid, body) SELECT rowid, body FROM messages WHERE id = ? AND body IS NOT NULL"),
  // the ids as one JSON array: one prepared statement whatever their number
  many: db.prepare("INSERT INTO messages_fts(rowid, body) SELECT rowid, body FROM messages WHERE id IN (SELECT value FROM json_each(?)) AND body IS NOT NULL"),
  rebuild: db.prepare("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')"),
}));

/**
 * Adds the text of the given messages (inserted by this transaction, not yet indexed) to the
 * search index; ids of rows that no longer exist (a rolled-back savepoint) or have no text are
 * skipped. Call it exactly once per message, inside the transaction that inserted it, before
 * anything deletes the message or changes its text (their triggers take out the terms added here).
 */
export async function indexMessageText(db: DB, ids: readonly string[]): Promise<void> {
  if (db.engine !== "sqlite" || ids.length === 0) return;
  if (ids.length === 1) await stmts(db).one.run(ids[0]!);
  else await stmts(db).many.run(JSON.stringify(ids));
}

/** Rebuilds the whole search index from the messages (SQLite; for bulk loads that bypass the repo). */
export async function reindexAllMessageText(db: DB): Promise<void> {
  if (db.engine !== "sqlite") return;
  await stmts(db).rebuild.run();
}
