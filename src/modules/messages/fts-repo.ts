import type { DB } from "../../db/store.ts";
import { oncePer } from "../../db/prepared.ts";
import { giveWay } from "../../yield.ts";

// The message search index on SQLite (the FTS5 table `messages_fts`, external content over
// messages.body, keyed by the messages' rowid) follows the messages table: no insert writes it.
// `messages_fts_mark.indexed_to` is the rowid up to which every message is indexed; the ones above
// it are not yet. A follower (text-index.ts) adds them in batches a few times a second, and a
// search first adds whatever is left (textIndexCaughtUp), so a search still finds every message
// stored before it. Writing the terms per send group cost about a tenth of a send's CPU (FTS5
// writes a new segment at every commit, and merges them); a batch of hundreds writes one.
// A message's delete and text edit change the index by trigger, only for a message at or below
// the mark (migrations/sqlite/0011). PostgreSQL indexes the text with the row itself (a GIN
// expression index): nothing to do there.
// FTS5's own merging of the index's segments is off (migrations/sqlite/0012): it ran inside the
// COMMIT of whichever write crossed its work unit, 64 × the levels' count of pages at once (6–9 ms
// of the event loop at a few hundred thousand messages); the follower merges in steps of
// TEXT_INDEX_MERGE_PAGES instead, a transaction each, with a turn of the event loop between them.

/** Messages added to the index by one transaction at most. */
export const TEXT_INDEX_BATCH = 500;
/** Pages of merged index one merge step writes, about (FTS5's 'merge' command). */
export const TEXT_INDEX_MERGE_PAGES = 32;

/** The index's statements, here for both sides: the main thread's (below) and the worker's (text-index-worker.ts). */
export const TEXT_INDEX_SQL = {
  mark: "SELECT indexed_to AS at FROM messages_fts_mark WHERE id = 1",
  last: "SELECT max(rowid) AS at FROM messages",
  // the rowid of the n-th message above the mark (0 is the first)
  nth: "SELECT rowid AS at FROM messages WHERE rowid > ? ORDER BY rowid LIMIT 1 OFFSET ?",
  add: "INSERT INTO messages_fts(rowid, body) SELECT rowid, body FROM messages WHERE rowid > ? AND rowid <= ? AND body IS NOT NULL",
  move: "UPDATE messages_fts_mark SET indexed_to = ? WHERE id = 1",
  // a positive count merges only where a level holds `usermerge` (4) segments or a merge is under
  // way: the same segments FTS5's automatic merging would have merged
  merge: "INSERT INTO messages_fts(messages_fts, rank) VALUES ('merge', ?)",
  changes: "SELECT total_changes() AS n",
};

const stmts = oncePer((db: DB) => ({
  mark: db.prepare<{ at: number }>(TEXT_INDEX_SQL.mark),
  last: db.prepare<{ at: number | null }>(TEXT_INDEX_SQL.last),
  nth: db.prepare<{ at: number }>(TEXT_INDEX_SQL.nth),
  add: db.prepare(TEXT_INDEX_SQL.add),
  move: db.prepare(TEXT_INDEX_SQL.move),
  rebuild: db.prepare("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')"),
  merge: db.prepare(TEXT_INDEX_SQL.merge),
  changes: db.prepare<{ n: number }>(TEXT_INDEX_SQL.changes),
}));

/** How far the index is behind: the mark and the last message's rowid (a read, outside a transaction it may be stale). */
export async function textIndexLag(db: DB): Promise<{ mark: number; last: number }> {
  const s = stmts(db);
  return { mark: (await s.mark.get())?.at ?? 0, last: (await s.last.get())?.at ?? 0 };
}

/**
 * Adds up to `batch` messages above the mark to the index, in one transaction, and moves the mark
 * past them. Returns how many rowids it covered (0: the index was caught up) and whether more wait.
 */
export async function indexPendingText(db: DB, batch = TEXT_INDEX_BATCH): Promise<{ covered: number; more: boolean }> {
  if (db.engine !== "sqlite") return { covered: 0, more: false };
  // a read first: a caught-up index takes no write transaction
  const seen = await textIndexLag(db);
  if (seen.last <= seen.mark) return { covered: 0, more: false };
  return db.tx(async () => {
    const s = stmts(db);
    const { mark, last } = await textIndexLag(db);
    if (last <= mark) return { covered: 0, more: false };
    const to = (await s.nth.get(mark, batch - 1))?.at ?? last;
    await s.add.run(mark, to);
    await s.move.run(to);
    return { covered: to - mark, more: to < last };
  });
}

/**
 * Adds every message not yet indexed, in batches that give the event loop a turn between them
 * (`stop` answering true ends it after a batch). Returns how many rowids it covered.
 */
export async function textIndexCaughtUp(db: DB, stop: () => boolean = () => false): Promise<number> {
  let covered = 0;
  for (;;) {
    const r = await indexPendingText(db);
    covered += r.covered;
    if (!r.more || stop()) return covered;
    await giveWay();
  }
}

/**
 * One step of merging the index's segments (about `pages` pages written), in a transaction of its
 * own. Returns whether it found anything to merge (FTS5 says so through the changes it made:
 * two or more).
 */
export async function mergeTextIndexStep(db: DB, pages = TEXT_INDEX_MERGE_PAGES): Promise<boolean> {
  if (db.engine !== "sqlite") return false;
  return db.tx(async () => {
    const s = stmts(db);
    const before = (await s.changes.get())!.n;
    await s.merge.run(pages);
    return (await s.changes.get())!.n - before >= 2;
  });
}

/**
 * Merges the index's segments until nothing is left to merge, one step a turn of the event loop
 * (`stop` answering true ends it after a step). Returns the steps that merged something.
 */
export async function textIndexMerged(db: DB, stop: () => boolean = () => false): Promise<number> {
  let steps = 0;
  while (!stop() && (await mergeTextIndexStep(db))) {
    steps++;
    await giveWay();
  }
  return steps;
}

/** Rebuilds the whole search index from the messages (SQLite; for bulk loads that bypass the repo). */
export async function reindexAllMessageText(db: DB): Promise<void> {
  if (db.engine !== "sqlite") return;
  await db.tx(async () => {
    const s = stmts(db);
    await s.rebuild.run();
    await s.move.run((await s.last.get())?.at ?? 0);
  });
}
