import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate as drizzleMigrate } from "drizzle-orm/bun-sqlite/migrator";
import { indexPendingText, textIndexCaughtUp, textIndexMerged, TEXT_INDEX_BATCH } from "../../../src/modules/messages/fts-repo.ts";
import { TextIndexFollower } from "../../../src/modules/messages/text-index.ts";
import { silentLogger } from "../../../src/log.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "./helpers.ts";

// SQLite's message search index follows the messages table (src/modules/messages/fts-repo.ts):
// a mark says up to which rowid every message is indexed; a follower adds the rest in batches and
// a search catches up first. What must hold: nothing is indexed twice or missed, whatever happens
// to a message before it is indexed (deleted, its text edited, its rowid handed out again), and
// the index always matches the messages exactly (FTS5's integrity check, rank 1).

let t: TestApp;
let ws: TestWorkspace;
let s: { id: string; phone: string };
let conversationId: string;
const sqlite = () => t.deps.db.engine === "sqlite";

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  s = await connectedSession(t, ws);
  const r = await t.request("POST", "/api/v1/messages/send", { token: await owner(), body: { session_id: s.id, to: "919655500001", body: "the first message" } });
  expect(r.status).toBe(202);
  conversationId = (await t.deps.db.prepare<{ c: string }>("SELECT conversation_id AS c FROM messages WHERE id = ?").get(r.body.data.id))!.c;
});
afterAll(() => t.close());

const owner = () => accessToken(t, ws.owner.userId, ws.id, "owner");
const search = async (words: string) =>
  ((await t.request("GET", `/api/v1/inbox/search?q=${encodeURIComponent(words)}`, { token: await owner() })).body.data as { body: string }[]).map((m) => m.body).sort();

/** Inserts a message straight into the table (as a bulk load or another process would); its rowid. */
async function insert(body: string | null): Promise<number> {
  const id = Bun.randomUUIDv7();
  const at = t.clock.now().getTime();
  await t.deps.db
    .prepare(
      `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'inbound', '919655500002', 'text', ?, 'received', ?, ?)`,
    )
    .run(id, ws.id, s.id, conversationId, body, at, at);
  return (await t.deps.db.prepare<{ r: number }>("SELECT rowid AS r FROM messages WHERE id = ?").get(id))!.r;
}
const mark = async () => (await t.deps.db.prepare<{ at: number }>("SELECT indexed_to AS at FROM messages_fts_mark").get())!.at;
const lastRowid = async () => (await t.deps.db.prepare<{ r: number }>("SELECT max(rowid) AS r FROM messages").get())!.r;
async function integrity(): Promise<void> {
  await t.deps.db.prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)").run();
}

describe("the search index follows the messages table (SQLite)", () => {
  test("the follower indexes new messages without any search", async () => {
    if (!sqlite()) return;
    // the test app runs no background work by itself: a follower of the test's own
    const follower = new TextIndexFollower(t.deps.db, silentLogger);
    follower.start();
    try {
      await insert("follower gazelle text");
      const deadline = Date.now() + 4_000;
      while ((await mark()) < (await lastRowid()) && Date.now() < deadline) await Bun.sleep(20);
    } finally {
      await follower.stop();
    }
    expect(await mark()).toBe(await lastRowid());
    // found by the index itself, not by a search's catching up
    const hit = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'gazelle'").get();
    expect(hit!.n).toBe(1);
    await integrity();
  });

  test("batches: a backlog larger than one batch is caught up in several, each moving the mark past what it added", async () => {
    if (!sqlite()) return;
    await textIndexCaughtUp(t.deps.db);
    const from = await mark();
    // inserted and the first batch added in one transaction: the follower cannot look in between
    const n = TEXT_INDEX_BATCH * 2 + 7;
    const first = await t.deps.db.tx(async () => {
      for (let i = 0; i < n; i++) await insert(i % 10 === 0 ? null : `backlog bison ${i}`);
      return indexPendingText(t.deps.db);
    });
    expect(first.more).toBe(true);
    expect(await mark()).toBeGreaterThan(from);
    const indexed = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE rowid > ? AND rowid <= ?").get(from, await mark());
    expect(indexed!.n).toBe(TEXT_INDEX_BATCH);
    await textIndexCaughtUp(t.deps.db);
    expect(await mark()).toBe(await lastRowid());
    expect((await indexPendingText(t.deps.db)).covered).toBe(0);
    const bison = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'bison'").get();
    expect(bison!.n).toBe(n - Math.ceil(n / 10));
    // FTS5's check counts a message without text as missing (none is ever indexed): those go first
    await t.deps.db.prepare("DELETE FROM messages WHERE body IS NULL").run();
    await integrity();
  });

  test("segments are merged by the follower's steps, not inside other writes (FTS5's automerge is off)", async () => {
    if (!sqlite()) return;
    const config = await t.deps.db.prepare<{ v: number }>("SELECT v FROM messages_fts_config WHERE k = 'automerge'").get();
    expect(config?.v).toBe(0);
    const rows = async () => (await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages_fts_data").get())!.n;
    await textIndexMerged(t.deps.db); // what the tests before left
    // one segment per indexing transaction: 6 of them, more than a level holds before a merge
    // (usermerge, 4) and fewer than FTS5's crisis merge (16)
    const before = await rows();
    for (let i = 0; i < 6; i++) {
      await insert(`merge step ocelot ${i}`);
      await indexPendingText(t.deps.db);
    }
    expect(await rows()).toBe(before + 6);
    expect(await textIndexMerged(t.deps.db)).toBeGreaterThan(0);
    expect(await rows()).toBeLessThan(before + 6);
    expect(await textIndexMerged(t.deps.db)).toBe(0);
    expect((await search("ocelot")).length).toBe(6);
    await integrity();
  });

  test("a message deleted or edited before it is indexed: the index never holds its old text", async () => {
    if (!sqlite()) return;
    await textIndexCaughtUp(t.deps.db);
    const before = await mark();
    const gone = await insert("deleted yak text");
    const edited = await insert("old quokka text");
    await t.deps.db.prepare("DELETE FROM messages WHERE rowid = ?").run(gone);
    await t.deps.db.prepare("UPDATE messages SET body = 'new quokka words' WHERE rowid = ?").run(edited);
    // neither touched the index nor the mark
    expect(await mark()).toBe(before);
    expect(await search("yak")).toEqual([]);
    expect(await search("quokka")).toEqual(["new quokka words"]);
    expect(await search("old")).toEqual([]);
    await integrity();
    // once indexed, an edit and a delete go through the index
    await t.deps.db.prepare("UPDATE messages SET body = 'newer quokka words' WHERE rowid = ?").run(edited);
    expect(await search("quokka")).toEqual(["newer quokka words"]);
    await t.deps.db.prepare("DELETE FROM messages WHERE rowid = ?").run(edited);
    expect(await search("quokka")).toEqual([]);
    await integrity();
  });

  test("the message at the mark deleted: the mark moves down, so its rowid handed out again is indexed", async () => {
    if (!sqlite()) return;
    const below = await insert("below tapir text");
    const top = await insert("top tapir text");
    await textIndexCaughtUp(t.deps.db);
    expect(await mark()).toBe(top);
    await t.deps.db.prepare("DELETE FROM messages WHERE rowid = ?").run(top);
    expect(await mark()).toBe(below);
    // SQLite hands out the largest rowid plus one: the deleted message's
    const again = await insert("again tapir text");
    expect(again).toBe(top);
    expect(await search("tapir")).toEqual(["again tapir text", "below tapir text"]);
    // several at once, the mark's among them, in either order
    const a = await insert("many okapi a");
    const b = await insert("many okapi b");
    const c = await insert("many okapi c");
    await textIndexCaughtUp(t.deps.db);
    await t.deps.db.prepare("DELETE FROM messages WHERE rowid IN (?, ?)").run(c, b);
    expect(await mark()).toBe(a);
    await insert("many okapi d");
    expect(await search("okapi")).toEqual(["many okapi a", "many okapi d"]);
    await integrity();
  });

  test("a message rolled back is never indexed, and the follower and a search never index one twice", async () => {
    if (!sqlite()) return;
    await expect(
      t.deps.db.tx(async () => {
        await insert("phantom ferret text");
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const kept = await insert("kept ferret text");
    // both at once: each reads the mark inside its own transaction
    await Promise.all([indexPendingText(t.deps.db), textIndexCaughtUp(t.deps.db), indexPendingText(t.deps.db)]);
    expect(await mark()).toBe(kept);
    expect(await search("ferret")).toEqual(["kept ferret text"]);
    await integrity();
  });
});

describe("the migration that starts following (SQLite)", () => {
  test("a database stored before it: its messages stay found, the mark starts at the last one, and new ones follow", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parley-fts-mark-"));
    try {
      // the migrations before this one, in a folder of their own
      const folder = join(dir, "migrations");
      cpSync(join(import.meta.dir, "../../../migrations/sqlite"), folder, { recursive: true });
      const journalPath = join(folder, "meta/_journal.json");
      const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
      const at = journal.entries.findIndex((e) => e.tag.endsWith("_messages_fts_follows"));
      expect(at).toBeGreaterThan(0);
      writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
      const sqliteDb = new Database(join(dir, "parley.db"));
      sqliteDb.exec("PRAGMA foreign_keys = OFF");
      drizzleMigrate(drizzle(sqliteDb), { migrationsFolder: folder });
      // messages stored then were indexed by the code that inserted them
      const add = sqliteDb.prepare(
        "INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at) VALUES (?, 'w', 's', 'c', 'inbound', '1', 'text', ?, 'received', 1, 1)",
      );
      for (const body of ["stored heron one", "stored heron two", null]) {
        add.run(Bun.randomUUIDv7(), body);
        sqliteDb.exec("INSERT INTO messages_fts(rowid, body) SELECT rowid, body FROM messages WHERE rowid = (SELECT max(rowid) FROM messages) AND body IS NOT NULL");
      }
      writeFileSync(journalPath, JSON.stringify(journal));
      drizzleMigrate(drizzle(sqliteDb), { migrationsFolder: folder });
      const markAt = () => (sqliteDb.query("SELECT indexed_to AS at FROM messages_fts_mark").get() as { at: number }).at;
      expect(markAt()).toBe(3);
      add.run(Bun.randomUUIDv7(), "later heron three");
      expect(markAt()).toBe(3);
      // the old messages' delete still takes them out of the index; the new one waits for the follower
      sqliteDb.exec("DELETE FROM messages WHERE body = 'stored heron two'");
      sqliteDb.exec("INSERT INTO messages_fts(rowid, body) SELECT rowid, body FROM messages WHERE rowid > 3 AND body IS NOT NULL");
      sqliteDb.exec("UPDATE messages_fts_mark SET indexed_to = 4");
      const found = sqliteDb.query("SELECT m.body FROM messages_fts f JOIN messages m ON m.rowid = f.rowid WHERE messages_fts MATCH 'heron' ORDER BY f.rowid").all() as { body: string }[];
      expect(found.map((r) => r.body)).toEqual(["stored heron one", "later heron three"]);
      sqliteDb.exec("DELETE FROM messages WHERE body IS NULL");
      sqliteDb.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)");
      sqliteDb.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
