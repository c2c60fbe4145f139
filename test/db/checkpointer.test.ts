import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKSTOP_PAGES, checkpointWhenBusy, startCheckpointer } from "../../src/db/checkpointer.ts";
import { threadWriteLock } from "../../src/db/sqlite.ts";
import { WAL_HEADER, walIndexView } from "../../src/db/wal-index.ts";
import { openSqliteFile as openDb } from "../helpers/store.ts";

const autocheckpoint = (s: Database) => Object.values(s.query("PRAGMA wal_autocheckpoint").get() as object)[0];

/** A fresh database file (openDb: WAL, its index mapped) with one table `t`. */
function tableDb() {
  const path = join(mkdtempSync(join(tmpdir(), "parley-ckpt-")), "p.db");
  const o = openDb(path);
  o.sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  return { path, o };
}

test("the worker checkpoints the WAL while the main connection writes; commits stay whole", async () => {
  const { path, o } = tableDb();
  // a huge interval: only the checkpoints the test asks for run
  const c = startCheckpointer(o.sqlite, path, { everyMs: 3_600_000 });
  const ins = o.sqlite.prepare("INSERT INTO t (v) VALUES (?)");
  for (let i = 0; i < 500; i++) ins.run("x".repeat(200));
  const [busy, frames, done] = await c.checkpoint();
  expect(busy).toBe(0);
  expect(frames).toBeGreaterThan(0);
  expect(done).toBe(frames);
  // checkpoints are the worker's now; the main connection keeps a backstop far above the default
  expect(autocheckpoint(o.sqlite)).toBe(BACKSTOP_PAGES);
  for (let i = 0; i < 500; i++) ins.run("y".repeat(200));
  await c.stop();
  expect(autocheckpoint(o.sqlite)).toBe(1_000);
  o.close();
  const again = new Database(path, { readonly: true });
  expect(again.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1000 });
  again.close();
});

test("a worker that cannot open the file leaves the checkpoints in the commits", async () => {
  const o = openDb(join(mkdtempSync(join(tmpdir(), "parley-ckpt-")), "p.db"));
  const c = startCheckpointer(o.sqlite, join(tmpdir(), "parley-ckpt-missing", "none.db"));
  await expect(c.checkpoint()).rejects.toThrow();
  expect(autocheckpoint(o.sqlite)).toBe(1_000);
  await c.stop();
  o.close();
});

test("the worker starts only once writes fill the WAL: an idle server has no checkpointer thread", async () => {
  const { path, o } = tableDb();
  const c = checkpointWhenBusy(o.sqlite, path, { pollMs: 5, everyMs: 3_600_000 });
  await Bun.sleep(30);
  expect(c.started).toBe(false);
  expect(autocheckpoint(o.sqlite)).toBe(1_000); // SQLite's own, in the commits
  const ins = o.sqlite.prepare("INSERT INTO t (v) VALUES (?)");
  for (let i = 0; i < 400; i++) ins.run("x".repeat(500)); // one commit each: hundreds of WAL frames
  for (let i = 0; i < 100 && !c.started; i++) await Bun.sleep(5);
  expect(c.started).toBe(true);
  const [busy] = await c.checkpoint();
  expect(busy).toBe(0);
  expect(autocheckpoint(o.sqlite)).toBe(BACKSTOP_PAGES);
  await c.stop();
  o.close();
});

test("with no writes the worker backs off, then goes idle: it stops ticking", async () => {
  const { path, o } = tableDb();
  const idle = Promise.withResolvers<number>();
  // no cap on the back-off: a tick every 1 ms for the 200 ms would be ~200 ticks, doubling waits ~9
  const c = startCheckpointer(o.sqlite, path, { everyMs: 1, maxMs: 3_600_000, idleMs: 200, onIdle: idle.resolve });
  const ticks = await idle.promise;
  expect(ticks).toBeGreaterThan(0);
  expect(ticks).toBeLessThan(40);
  await c.stop();
  o.close();
});

test("after an idle stop a new burst of writes starts the worker again; commits stay whole", async () => {
  const { path, o } = tableDb();
  const ins = o.sqlite.prepare("INSERT INTO t (v) VALUES (?)");
  const burst = (v: string) => {
    for (let i = 0; i < 400; i++) ins.run(v.repeat(500)); // one commit each: hundreds of WAL frames
  };
  // each worker goes idle once: counting idle stops cannot miss a short run, as sampling `started` could
  let idles = 0;
  const seen: { started: boolean; pages: unknown }[] = [];
  const c = checkpointWhenBusy(o.sqlite, path, {
    pollMs: 5,
    everyMs: 1,
    maxMs: 20,
    idleMs: 100,
    onIdle: () => {
      idles++;
      // stopped: the checkpoints back in the commits
      seen.push({ started: c.started, pages: autocheckpoint(o.sqlite) });
      // the second burst comes while the first worker is still stopping: it counts as new writes
      if (idles === 1) burst("y");
    },
  });
  burst("x");
  for (let i = 0; i < 1_000 && idles < 2; i++) await Bun.sleep(10);
  expect(idles).toBe(2);
  expect(seen).toEqual([
    { started: false, pages: 1_000 },
    { started: false, pages: 1_000 },
  ]);
  burst("z");
  await c.stop();
  expect(c.started).toBe(false);
  o.close();
  const again = new Database(path, { readonly: true });
  expect(again.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1200 });
  again.close();
});

test("with the thread write lock, a long WAL is finished and started over by the worker's turn, never by a checkpoint in a commit", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "parley-ckpt-")), "p.db");
  const o = openDb(path);
  await o.db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  const c = startCheckpointer(o.sqlite, path, { lock: () => threadWriteLock(o.db)!.lock, restartFrames: 1_000 });
  const header = walIndexView(path)!;
  const frames = () => header.getUint32(WAL_HEADER.frames, true);
  const ins = o.db.prepare("INSERT INTO t (v) VALUES (?)");
  // commits one right after another, as under a send load: without the lock the worker's own
  // checkpoints never finish between two, and only the backstop's checkpoint (BACKSTOP_PAGES), in
  // a commit, starts the WAL over
  let restarts = 0;
  let longest = 0;
  for (let i = 0, last = 0; i < 1_500; i++) {
    await o.db.tx(async () => {
      for (let j = 0; j < 10; j++) await ins.run("x".repeat(3_000));
    });
    await Bun.sleep(0);
    const now = frames();
    if (now < last) restarts++;
    longest = Math.max(longest, now);
    last = now;
  }
  await c.stop();
  expect((await o.db.prepare<{ n: number }>("SELECT count(*) AS n FROM t").get())!.n).toBe(15_000);
  await o.close();
  // started over again and again, each time soon after 1,000 frames: far from the backstop
  expect(restarts).toBeGreaterThan(2);
  expect(longest).toBeLessThan(BACKSTOP_PAGES);
});
