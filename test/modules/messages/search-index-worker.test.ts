import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { threadWriteLock } from "../../../src/db/sqlite.ts";
import { WORKER_SIDE } from "../../../src/db/thread-lock.ts";
import { textIndexLag } from "../../../src/modules/messages/fts-repo.ts";
import { TextIndexFollower, type TextIndexFollowerOptions } from "../../../src/modules/messages/text-index.ts";
import { startTextIndexWorker } from "../../../src/modules/messages/text-index-worker.ts";
import { silentLogger } from "../../../src/log.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "./helpers.ts";

// On a database file, the search index's follower works on a worker thread with a connection of
// its own (src/modules/messages/text-index-worker.ts), and the two threads order their writes by
// a lock of their own before SQLite's (src/db/thread-lock.ts), which the main thread waits for
// without blocking its event loop. What must hold: every message indexed once, the index whole
// (FTS5's integrity check), the main thread's writes never refused while the worker writes, and
// a follower stopped in the middle of a backlog leaves everything as a later one can go on from.

let t: TestApp;
let ws: TestWorkspace;
let s: { id: string; phone: string };
let conversationId: string;
const sqlite = () => t.deps.db.engine === "sqlite";

beforeAll(async () => {
  t = await createTestApp({ fileDb: true, engine: "sqlite", config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  s = await connectedSession(t, ws);
  const token = await accessToken(t, ws.owner.userId, ws.id, "owner");
  const r = await t.request("POST", "/api/v1/messages/send", { token, body: { session_id: s.id, to: "919655500011", body: "the first message" } });
  expect(r.status).toBe(202);
  conversationId = (await t.deps.db.prepare<{ c: string }>("SELECT conversation_id AS c FROM messages WHERE id = ?").get(r.body.data.id))!.c;
});
afterAll(() => t.close());

/** Inserts `n` messages straight into the table in one transaction (as a bulk load would). */
async function insertMany(n: number, body: (i: number) => string | null): Promise<void> {
  const stmt = t.deps.db.prepare(
    `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'inbound', '919655500012', 'text', ?, 'received', ?, ?)`,
  );
  await t.deps.db.tx(async () => {
    const at = t.clock.now().getTime();
    for (let i = 0; i < n; i++) await stmt.run(Bun.randomUUIDv7(), ws.id, s.id, conversationId, body(i), at, at);
  });
}
const matches = async (word: string) => (await t.deps.db.prepare<{ n: number }>(`SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?`).get(word))!.n;
async function integrity(): Promise<void> {
  // FTS5's check counts a message without text as missing (none is ever indexed)
  await t.deps.db.prepare("DELETE FROM messages WHERE body IS NULL").run();
  await t.deps.db.prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)").run();
}
async function caughtUp(deadlineMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const { mark, last } = await textIndexLag(t.deps.db);
    if (mark >= last) return true;
    if (Date.now() > deadline) return false;
    await Bun.sleep(20);
  }
}

describe("the search index's worker thread (SQLite file)", () => {
  test("the follower indexes a backlog on its worker while the main thread writes: every message once, none refused", async () => {
    if (!sqlite()) return;
    // indexing at once, whatever the rate of the main thread's writes (the wait for a burst's end: below)
    const follower = new TextIndexFollower(t.deps.db, silentLogger, { deferMs: 0 });
    await insertMany(6_000, (i) => (i % 7 === 0 ? null : `worker wombat ${i}`));
    follower.start();
    try {
      // the main thread's own transactions meanwhile, one after another and several at once
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 40; i++) writes.push(insertMany(25, (j) => `main numbat ${i}-${j}`));
      await Promise.all(writes);
      expect(await caughtUp()).toBe(true);
      expect(follower.mode).toBe("worker");
    } finally {
      await follower.stop();
    }
    expect(await matches("wombat")).toBe(6_000 - Math.ceil(6_000 / 7));
    expect(await matches("numbat")).toBe(40 * 25);
    await integrity();
  });

  test("stopped in the middle of a backlog: the lock is free, the mark is where the index is, and the next follower goes on", async () => {
    if (!sqlite()) return;
    await insertMany(20_000, (i) => `stopped koala ${i}`);
    const first = new TextIndexFollower(t.deps.db, silentLogger);
    first.start();
    while ((await textIndexLag(t.deps.db)).mark === 0) await Bun.sleep(1);
    await first.stop();
    // the main thread writes at once after the stop (the worker's lock given back)
    await insertMany(1, () => "after the stop koala");
    const second = new TextIndexFollower(t.deps.db, silentLogger);
    second.start();
    try {
      expect(await caughtUp()).toBe(true);
    } finally {
      await second.stop();
    }
    expect(await matches("koala")).toBe(20_001);
    await integrity();
  });

  test("a search while the worker indexes: it catches up on the main thread, and nothing is indexed twice", async () => {
    if (!sqlite()) return;
    await insertMany(8_000, (i) => `race dingo ${i}`);
    const worker = startTextIndexWorker(t.deps.db)!;
    expect(worker).not.toBeNull();
    try {
      const token = await accessToken(t, ws.owner.userId, ws.id, "owner");
      const [looked, searched] = await Promise.all([worker.look(), t.request("GET", "/api/v1/inbox/search?q=dingo&limit=5", { token })]);
      expect(searched.status).toBe(200);
      expect(looked.covered).toBeLessThanOrEqual(8_000);
    } finally {
      await worker.stop();
    }
    expect(await matches("dingo")).toBe(8_000);
    await integrity();
  });
});

describe("the search index waits for a burst of writes to end (SQLite file)", () => {
  /** Writes `perTick` messages every 20 ms for `ms`; calls `during` after each write with the time gone. */
  async function burst(ms: number, perTick: number, word: string, during: (elapsed: number) => Promise<void> = async () => {}): Promise<void> {
    const from = Date.now();
    for (let i = 0; Date.now() - from < ms; i++) {
      await insertMany(perTick, (j) => `${word} ${i}-${j}`);
      await during(Date.now() - from);
      await Bun.sleep(20);
    }
  }

  /** Runs `fn` with a follower of these options started and caught up with what the tests before left; stops it after. */
  async function following(o: TextIndexFollowerOptions, fn: (follower: TextIndexFollower) => Promise<void>): Promise<void> {
    const follower = new TextIndexFollower(t.deps.db, silentLogger, o);
    follower.start();
    try {
      expect(await caughtUp()).toBe(true);
      await fn(follower);
    } finally {
      await follower.stop();
    }
  }

  /** The messages stored with a body starting `words `. */
  const stored = async (words: string) => (await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE body LIKE ?").get(`${words} %`))!.n;

  test("messages coming faster than the busy rate wait, unindexed, and are indexed once the burst is over", async () => {
    if (!sqlite()) return;
    await following({ busyPerS: 200, deferMs: 60_000 }, async (follower) => {
      const before = (await textIndexLag(t.deps.db)).mark;
      let deferredAt: number | undefined;
      // ≈2,500 messages a second for 1.5 s: the follower's looks (every 0.2-0.4 s) see the rate;
      // the first look of the burst knows no rate yet and may index what came before it
      await burst(1_500, 50, "burst wallaby", async () => {
        if (deferredAt === undefined && follower.deferring) deferredAt = (await textIndexLag(t.deps.db)).mark;
      });
      expect(deferredAt).toBeDefined();
      expect(deferredAt! - before).toBeLessThan(500);
      // from the first look that saw the rate to the burst's end: nothing indexed
      const after = await textIndexLag(t.deps.db);
      expect(after.mark).toBe(deferredAt!);
      expect(after.last - after.mark).toBeGreaterThan(1_500);
      // the burst over: the next look finds a rate of nothing and indexes every message
      expect(await caughtUp(10_000)).toBe(true);
      expect(follower.deferring).toBe(false);
    });
    expect(await matches("wallaby")).toBeGreaterThanOrEqual(2_000);
    expect(await matches("wallaby")).toBe(await stored("burst wallaby"));
    await integrity();
  });

  test("a burst that lasts: the messages wait at most deferMs, then are indexed while it goes on", async () => {
    if (!sqlite()) return;
    await following({ busyPerS: 200, deferMs: 300 }, async () => {
      const before = (await textIndexLag(t.deps.db)).mark;
      let movedDuring = false;
      await burst(2_000, 50, "lasting quokka", async (elapsed) => {
        if (elapsed > 1_000) movedDuring ||= (await textIndexLag(t.deps.db)).mark > before;
      });
      expect(movedDuring).toBe(true);
      expect(await caughtUp(10_000)).toBe(true);
    });
    expect(await matches("quokka")).toBe(await stored("lasting quokka"));
    await integrity();
  });

  test("a search during a burst finds every message the follower left waiting", async () => {
    if (!sqlite()) return;
    await following({ busyPerS: 200, deferMs: 60_000 }, async (follower) => {
      let waited = false;
      await burst(1_000, 50, "searched platypus", async () => {
        waited ||= follower.deferring;
      });
      expect(waited).toBe(true);
      const token = await accessToken(t, ws.owner.userId, ws.id, "owner");
      const r = await t.request("GET", "/api/v1/inbox/search?q=platypus&limit=5", { token });
      expect(r.status).toBe(200);
      // the search caught the index up itself: every message of the burst is in it
      const lag = await textIndexLag(t.deps.db);
      expect(lag.mark).toBe(lag.last);
    });
    expect(await matches("platypus")).toBe(await stored("searched platypus"));
    await integrity();
  });
});

describe("the thread write lock (SQLite file)", () => {
  test("a main-thread transaction waits for a worker's hold without blocking the event loop, then commits", async () => {
    if (!sqlite()) return;
    const { lock } = threadWriteLock(t.deps.db)!;
    const worker = new Worker(
      URL.createObjectURL(
        new Blob([`${WORKER_SIDE}\nlet a;\nself.onmessage = (e) => { if (e.data.lock) { a = new Int32Array(e.data.lock); take(a, 2); postMessage("held"); } else { give(a, 2); postMessage("given"); } };`], { type: "text/javascript" }),
      ),
    );
    const said: string[] = [];
    const heard = (what: string) => new Promise<void>((resolve) => worker.addEventListener("message", (e) => e.data === what && resolve()));
    try {
      const held = heard("held");
      worker.postMessage({ lock: lock.buffer });
      await held;
      const tx = t.deps.db.tx(async () => {
        said.push("main transaction");
        await t.deps.db.prepare("UPDATE messages_fts_mark SET indexed_to = indexed_to WHERE id = 1").run();
      });
      // the event loop runs while the transaction waits: a timer fires, the transaction has not begun
      await Bun.sleep(30);
      said.push("timer");
      const given = heard("given");
      worker.postMessage({ give: true });
      await given;
      await tx;
      expect(said).toEqual(["timer", "main transaction"]);
    } finally {
      worker.terminate();
    }
  });
});
