import { expect, test } from "bun:test";
import { openPostgresStore } from "../../src/db/postgres.ts";
import { ReadCache, READ_CACHE_TTL_MS } from "../../src/db/read-cache.ts";
import { TableWrites } from "../../src/db/table-writes.ts";
import { emptyPostgres, testEngine } from "../helpers/postgres.ts";

// The PostgreSQL store's read cache for the request guard (src/db/read-cache.ts) and the write
// watch it relies on (src/db/table-writes.ts). The two-process behaviour is in test/cluster/guard-cache.test.ts.

test("the write watch names the watched tables a statement writes, in drizzle's and in raw SQL, CTEs included; reads name none", () => {
  const w = new TableWrites();
  w.watch(["api_keys", "users"], () => {});
  expect(w.written('update "api_keys" set "revoked_at" = $1 where "api_keys"."id" = $2')).toEqual(["api_keys"]);
  expect(w.written("DELETE FROM users WHERE id = ?")).toEqual(["users"]);
  expect(w.written("WITH x AS (UPDATE users SET role = 'admin' RETURNING id) INSERT INTO api_keys SELECT 1")).toEqual(["users", "api_keys"]);
  expect(w.written('insert into "messages" ("id") values ($1)')).toEqual([]);
  expect(w.written("SELECT * FROM users u JOIN api_keys k ON k.id = u.id")).toEqual([]);
  const seen: string[] = [];
  w.watch(["plans"], (t) => seen.push(t));
  w.committed(["plans", "users"], "x");
  expect(seen).toEqual(["plans"]);
});

/** A cache that is watching (a stand-in announcer) and live, on a controllable clock. */
function liveCache(now: { t: number }) {
  const cache = new ReadCache(() => now.t);
  const announced: string[] = [];
  (cache as unknown as { notify: (o: string) => void }).notify = (o) => announced.push(o);
  cache.setLive(true);
  return { cache, announced };
}

test("a kept value answers without a read until a change is heard, the listener goes away, or the TTL passes", async () => {
  const now = { t: 1_000 };
  const { cache } = liveCache(now);
  let reads = 0;
  const read = async () => ({ n: ++reads });
  expect(await cache.get(0, "k", read)).toEqual({ n: 1 });
  expect(cache.get(0, "k", read)).toEqual({ n: 1 }); // at once, no promise
  expect(cache.get(1, "k", read)).toBeInstanceOf(Promise); // another space
  cache.heard("another-process");
  expect(await cache.get(0, "k", read)).toEqual({ n: 3 });
  cache.heard(cache.origin); // its own announcement: dropped already when it wrote
  expect(cache.get(0, "k", read)).toEqual({ n: 3 });
  now.t += READ_CACHE_TTL_MS;
  expect(await cache.get(0, "k", read)).toEqual({ n: 4 });
  cache.setLive(false);
  expect(await cache.get(0, "k", read)).toEqual({ n: 5 });
  expect(await cache.get(0, "k", read)).toEqual({ n: 6 }); // nothing kept while not listening
  expect(cache.size).toBe(0);
});

test("a read that started before a change and answers after it is not kept", async () => {
  const { cache } = liveCache({ t: 0 });
  let release!: (v: string) => void;
  const slow = cache.get(0, "k", () => new Promise<string>((r) => (release = r)));
  cache.heard("another-process");
  release("old");
  expect(await slow).toBe("old");
  expect(cache.size).toBe(0);
  expect(await cache.get(0, "k", async () => "new")).toBe("new");
  expect(cache.get(0, "k", async () => "again")).toBe("new");
});

test("a cache nothing watches keeps nothing, even when live", async () => {
  const cache = new ReadCache();
  cache.setLive(true);
  let reads = 0;
  await cache.get(0, "k", async () => ++reads);
  await cache.get(0, "k", async () => ++reads);
  expect(reads).toBe(2);
});

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only: the store reports a committed write to a watched table (after the statement, or at commit; never on rollback), announces it, and drops what was kept",
  async () => {
    const pg = await emptyPostgres();
    const { db } = openPostgresStore(pg.url, { max: 2 });
    try {
      await db.exec("CREATE TABLE api_keys (id text PRIMARY KEY, revoked_at bigint, last_used_at bigint)");
      await db.prepare("INSERT INTO api_keys (id) VALUES ('a')").run();
      const { readCache } = await import("../../src/db/read-cache.ts");
      const cache = readCache(db);
      cache.setLive(true);
      let reads = 0;
      const read = async () => ++reads;
      const kept = async () => {
        const before = reads;
        await cache.get(0, "a", read);
        return reads === before;
      };
      await cache.get(0, "a", read);
      expect(await kept()).toBe(true);
      // the batched last-use record changes nothing the guard reads
      await db.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)").run(1, "a", 1);
      expect(await kept()).toBe(true);
      // a write outside a transaction: dropped once it answered
      await db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(1, "a");
      expect(await kept()).toBe(false);
      // inside a transaction: kept until the commit, dropped by it
      let during = false;
      await db.tx(async () => {
        await db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(2, "a");
        during = await kept();
      });
      expect(during).toBe(true);
      expect(await kept()).toBe(false);
      // rolled back: nothing to drop
      await cache.get(0, "a", read);
      await expect(
        db.tx(async () => {
          await db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(3, "a");
          throw new Error("no");
        }),
      ).rejects.toThrow("no");
      expect(await kept()).toBe(true);
      expect((await db.prepare<{ r: number }>("SELECT revoked_at AS r FROM api_keys").get())!.r).toBe(2);
    } finally {
      await db.close();
      await pg.drop();
    }
  },
);

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only: a write to the sessions table drops what was kept (a session added, renamed, its status changed, deleted); a session's sealed credentials written by the network do not",
  async () => {
    const pg = await emptyPostgres();
    const { db } = openPostgresStore(pg.url, { max: 2 });
    try {
      await db.exec("CREATE TABLE chat_sessions (id text PRIMARY KEY, name text, status text, credentials text)");
      const { readCache } = await import("../../src/db/read-cache.ts");
      const cache = readCache(db);
      cache.setLive(true);
      let reads = 0;
      const kept = async () => {
        const before = reads;
        await cache.get(0, "ws", async () => ++reads);
        return reads === before;
      };
      await kept();
      expect(await kept()).toBe(true);
      await db.prepare("INSERT INTO chat_sessions (id, name, status) VALUES (?, ?, 'disconnected')").run("s", "one");
      expect(await kept()).toBe(false);
      expect(await kept()).toBe(true);
      await db.prepare("UPDATE chat_sessions SET credentials = ? WHERE id = ?").run("sealed", "s");
      expect(await kept()).toBe(true);
      await db.prepare('update "chat_sessions" set "status" = $1 where "chat_sessions"."id" = $2').run("connected", "s");
      expect(await kept()).toBe(false);
      expect(await kept()).toBe(true);
      await db.prepare("UPDATE chat_sessions SET name = ? WHERE id = ?").run("renamed", "s");
      expect(await kept()).toBe(false);
      expect(await kept()).toBe(true);
      await db.prepare("DELETE FROM chat_sessions WHERE id = ?").run("s");
      expect(await kept()).toBe(false);
    } finally {
      await db.close();
      await pg.drop();
    }
  },
);
