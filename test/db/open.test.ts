import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundledMigrationCount, migrate } from "../../src/db/migrate.ts";
import { openSqliteFile as openDb } from "../helpers/store.ts";

test("a file database opens with WAL, NORMAL sync, foreign keys and a busy timeout", () => {
  const path = join(mkdtempSync(join(tmpdir(), "parley-db-")), "p.db");
  const o = openDb(path);
  const get = (p: string) => Object.values(o.sqlite.query(`PRAGMA ${p}`).get() as object)[0];
  expect(get("journal_mode")).toBe("wal");
  expect(get("synchronous")).toBe(1); // NORMAL
  expect(get("foreign_keys")).toBe(1);
  expect(get("busy_timeout")).toBe(5000);
  o.close();
  const full = openDb(path, { synchronous: "full" });
  expect(Object.values(full.sqlite.query("PRAGMA synchronous").get() as object)[0]).toBe(2);
  full.close();
});

test("migrations apply once and are idempotent", async () => {
  const o = openDb(":memory:");
  expect(await migrate(o.db)).toBe(bundledMigrationCount());
  expect(await migrate(o.db)).toBe(0);
  const tables = o.sqlite.query("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[];
  expect(tables.map((t) => t.name)).toContain("jobs");
  await o.close();
});

test("an up-to-date database is not migrated again: no transaction, so another process's write lock does not hold the start up (SQLite only)", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "parley-db-")), "p.db");
  const o = openDb(path);
  expect(await migrate(o.db)).toBe(bundledMigrationCount());
  o.sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const held = await holdWriteLock(path, null);
  try {
    // a transaction would wait in the busy handler until the lock goes, then fail: only reads here
    expect(await migrate(o.db)).toBe(0);
  } finally {
    held.release();
  }
  expect(await held.p.exited).toBe(0);
  // and the database still holds the row the other process wrote under its lock
  expect(o.sqlite.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1 });
  await o.close();
});

/**
 * Another process takes the write lock (BEGIN IMMEDIATE and a write) and says so; it commits
 * `ms` later, or when told to on its stdin when `ms` is null.
 */
async function holdWriteLock(path: string, ms: number | null): Promise<{ p: Bun.Subprocess<"pipe", "pipe", "inherit">; release(): void }> {
  const script = `const { Database } = require("bun:sqlite");
const d = new Database(${JSON.stringify(path)});
d.exec("PRAGMA busy_timeout = 5000");
d.exec("BEGIN IMMEDIATE");
d.exec("INSERT INTO t (v) VALUES ('other process')");
console.log("locked");
${ms === null ? "for await (const _ of console) break;" : `Bun.sleepSync(${ms});`}
d.exec("COMMIT");`;
  const p = Bun.spawn([process.execPath, "-e", script], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = p.stdout.getReader();
  let out = "";
  while (!out.includes("locked")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the locking process ended before it locked");
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    p,
    release() {
      p.stdin.write("commit\n");
      p.stdin.end();
    },
  };
}

test("a transaction that reads, then writes, waits for another process's write lock instead of failing at once", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "parley-db-")), "p.db");
  const o = openDb(path);
  o.sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const readThenWrite = (sqlite: Database, v: string) => () => {
    const n = (sqlite.query("SELECT count(*) AS n FROM t").get() as { n: number }).n;
    sqlite.query("INSERT INTO t (v) VALUES (?)").run(`${v} after ${n}`);
  };

  // the hazard, on a plain connection with the same busy timeout: SQLite does not wait when a
  // DEFERRED transaction that has read asks for the write lock
  const plain = new Database(path);
  plain.exec("PRAGMA busy_timeout = 5000");
  const held = await holdWriteLock(path, null);
  expect(() => plain.transaction(readThenWrite(plain, "plain"))()).toThrow("database is locked");
  held.release();
  expect(await held.p.exited).toBe(0);
  plain.close();

  // Parley's store: every transaction begins IMMEDIATE and waits in the busy handler
  const readThenWriteTx = (v: string) =>
    o.db.tx(async () => {
      const n = ((await o.db.prepare("SELECT count(*) AS n FROM t").get()) as { n: number }).n;
      await o.db.prepare("INSERT INTO t (v) VALUES (?)").run(`${v} after ${n}`);
    });
  for (const name of ["tx", "tx again"]) {
    // committed 300 ms after it locked, while the transaction below waits in the busy handler
    const other = await holdWriteLock(path, 300);
    await readThenWriteTx(name);
    expect(await other.p.exited).toBe(0);
    const last = o.sqlite.query("SELECT v FROM t ORDER BY id DESC LIMIT 1").get() as { v: string };
    expect(last.v).toStartWith(name); // written after the other process's row, which it saw
    expect(last.v).not.toEndWith("after 0");
  }
  // nested calls are savepoints: the inner one's failure rolls back the inner part only
  await o.db.tx(async () => {
    await o.db.prepare("INSERT INTO t (v) VALUES ('outer')").run();
    await expect(
      o.db.tx(async () => {
        await o.db.prepare("INSERT INTO t (v) VALUES ('inner')").run();
        throw new Error("inner fails");
      }),
    ).rejects.toThrow("inner fails");
  });
  const vs = (o.sqlite.query("SELECT v FROM t").all() as { v: string }[]).map((r) => r.v);
  expect(vs).toContain("outer");
  expect(vs).not.toContain("inner");
  await o.close();
});
