import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteFile as openDb } from "../helpers/store.ts";
import { memoSpace, SnapshotMemo, snapshotMemo } from "../../src/db/snapshot-memo.ts";
import { mapWalIndex, unmapWalIndex, walIndexView } from "../../src/db/wal-index.ts";
import { commitFromAnotherProcess } from "../helpers/process.ts";

const S = memoSpace();

function fileDb() {
  const path = join(mkdtempSync(join(tmpdir(), "parley-snap-")), "t.db");
  const opened = openDb(path);
  opened.sqlite.exec("CREATE TABLE t (x INTEGER)");
  return { path, ...opened };
}


test("a value is kept until the next commit of this connection", () => {
  const { sqlite, close } = fileDb();
  const memo = snapshotMemo(sqlite);
  expect(memo.open()).toBe(true);
  memo.set(S, "a", 1);
  expect(memo.open()).toBe(true);
  expect(memo.get(S, "a")).toBe(1);
  sqlite.query("SELECT count(*) FROM t").get(); // reads change nothing
  expect(memo.open()).toBe(true);
  expect(memo.get(S, "a")).toBe(1);
  sqlite.exec("INSERT INTO t VALUES (1)");
  expect(memo.open()).toBe(true);
  expect(memo.get(S, "a")).toBeUndefined();
  close();
});

test("a commit by another process drops every value; so does a checkpoint that restarts the WAL", () => {
  const { path, sqlite, close } = fileDb();
  const memo = snapshotMemo(sqlite);
  memo.open();
  memo.set(S, "a", 1);
  commitFromAnotherProcess(path, "INSERT INTO t VALUES (2)");
  expect(memo.open()).toBe(true);
  expect(memo.get(S, "a")).toBeUndefined();
  memo.set(S, "b", 2);
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.exec("INSERT INTO t VALUES (3)");
  memo.open();
  expect(memo.get(S, "b")).toBeUndefined();
  close();
});

test("a transaction that rolls back leaves no value read inside it: nothing is kept in a transaction", () => {
  const { sqlite, close } = fileDb();
  const memo = snapshotMemo(sqlite);
  sqlite.exec("BEGIN");
  sqlite.exec("INSERT INTO t VALUES (9)");
  expect(memo.open()).toBe(false); // callers then read and keep nothing
  sqlite.exec("ROLLBACK");
  expect(memo.open()).toBe(true);
  close();
});

test("without a WAL index (a database in memory) nothing is ever kept", () => {
  const db = new Database(":memory:");
  expect(snapshotMemo(db).open()).toBe(false);
});

test("a header caught half-written (the two copies differ) keeps nothing and drops what was kept", () => {
  const bytes = new Uint8Array(96);
  const view = new DataView(bytes.buffer);
  const memo = new SnapshotMemo(new Database(":memory:"), view);
  view.setUint32(8, 5, true);
  view.setUint32(48 + 8, 5, true);
  expect(memo.open()).toBe(true);
  memo.set(S, "a", 1);
  view.setUint32(48 + 8, 6, true); // a writer has written the second copy, not yet the first
  expect(memo.open()).toBe(false);
  view.setUint32(8, 6, true);
  expect(memo.open()).toBe(true);
  expect(memo.get(S, "a")).toBeUndefined();
});

test("at most `max` values: a flood of distinct keys starts over instead of growing", () => {
  const bytes = new Uint8Array(96);
  const memo = new SnapshotMemo(new Database(":memory:"), new DataView(bytes.buffer), 3);
  memo.open();
  for (const k of ["a", "b", "c", "d"]) memo.set(S, k, k);
  expect([memo.get(S, "a"), memo.get(S, "d")]).toEqual([undefined, "d"]);
});

test("spaces keep their keys apart, and an object (a row read before) can be a key", () => {
  const bytes = new Uint8Array(96);
  const memo = new SnapshotMemo(new Database(":memory:"), new DataView(bytes.buffer));
  const other = memoSpace();
  const row = { id: "r" };
  memo.open();
  memo.set(S, "a", 1);
  memo.set(other, "a", 2);
  memo.set(other, row, 3);
  expect([memo.get(S, "a"), memo.get(other, "a"), memo.get(other, row), memo.get(other, { id: "r" })]).toEqual([1, 2, 3, undefined]);
});

describe("the WAL index mapping (src/db/wal-index.ts)", () => {
  test("another process connecting and leaving while this one writes and reads the index: no lock of SQLite is lost (a backup)", async () => {
    // Mapping the index after SQLite opened it dropped SQLite's POSIX locks (closing any
    // descriptor of a file drops them all): each reader that came and went then took the index
    // for abandoned and rebuilt it under the writer (SQLITE_BUSY_RECOVERY here, SIGBUS in a server).
    const { path, sqlite, close } = fileDb();
    const memo = snapshotMemo(sqlite);
    expect(memo.open()).toBe(true);
    const reader = Bun.spawn([process.execPath, "-e", `const { Database } = require("bun:sqlite"); const end = Date.now() + 400; while (Date.now() < end) { const d = new Database(${JSON.stringify(path)}, { readonly: true }); d.query("SELECT count(*) FROM t").get(); d.close(); }`]);
    const insert = sqlite.prepare("INSERT INTO t VALUES (?)");
    let n = 0;
    for (const end = Date.now() + 500; Date.now() < end; ) {
      insert.run(n++);
      memo.open();
      if (n % 100 === 0) await Bun.sleep(0);
    }
    expect(await reader.exited).toBe(0);
    expect(sqlite.query("SELECT count(*) AS n FROM t").get()).toEqual({ n });
    expect(sqlite.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    close();
  });

  test("a second connection of the same process reuses the mapping; the memo works until the last one closes", () => {
    const { path, sqlite, close } = fileDb();
    const second = openDb(path);
    second.close();
    const memo = snapshotMemo(sqlite);
    expect(memo.open()).toBe(true);
    memo.set(S, "a", 1);
    commitFromAnotherProcess(path, "INSERT INTO t VALUES (5)");
    expect(memo.open()).toBe(true);
    expect(memo.get(S, "a")).toBeUndefined();
    close();
    expect(walIndexView(path)).toBeNull();
  });

  test("an index made again by another process between the mapping and SQLite's open is not read", () => {
    const dir = mkdtempSync(join(tmpdir(), "parley-snap-"));
    const path = join(dir, "t.db");
    openDb(path).close(); // a database file, no index left
    mapWalIndex(path);
    rmSync(`${path}-shm`);
    writeFileSync(`${path}-shm`, new Uint8Array(32_768)); // another file under the same name
    expect(walIndexView(path)).toBeNull();
    unmapWalIndex(path);
  });
});
