import { afterEach, expect, test } from "bun:test";
import { openPostgresStore } from "../../src/db/postgres.ts";
import type { DB } from "../../src/db/store.ts";
import { emptyPostgres, testEngine } from "../helpers/postgres.ts";

// postgres.js on Bun's own TCP socket (src/db/pg-socket.ts): what node:net did for it still
// works: large statements and answers (partial writes and reads), a refused connection, a
// server that goes away, the pool's end.

const pgOnly = test.skipIf(testEngine !== "postgres");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function store(bunSocket: boolean): Promise<DB> {
  const pg = await emptyPostgres();
  const { db } = openPostgresStore(pg.url, { max: 4, bunSocket });
  cleanups.push(pg.drop, () => db.close());
  return db;
}

for (const bunSocket of [true, false]) {
  const on = bunSocket ? "Bun's socket" : "node:net";
  pgOnly(`PostgreSQL only (${on}): 8 MB statements and answers in parallel come back whole`, async () => {
    const db = await store(bunSocket);
    await db.exec("CREATE TABLE big (id int PRIMARY KEY, body text NOT NULL)");
    const body = (i: number) => String(i).repeat(8_000_000 / String(i).length);
    await Promise.all([1, 2, 3].map((i) => db.prepare("INSERT INTO big VALUES (?, ?)").run(i, body(i))));
    const rows = await Promise.all([1, 2, 3].map((i) => db.prepare<{ body: string }>("SELECT body FROM big WHERE id = ?").get(i)));
    expect(rows.map((r) => r!.body === body([1, 2, 3][rows.indexOf(r)]!))).toEqual([true, true, true]);
    const n = await Promise.all(Array.from({ length: 200 }, (_, i) => db.prepare<{ x: number }>("SELECT ? + 1 AS x").get(i)));
    expect(n.map((r) => r!.x)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  pgOnly(
    `PostgreSQL only (${on}): a refused connection is retried by the pool (no error thrown at the process); the store's close ends the wait`,
    async () => {
      const uncaught: unknown[] = [];
      const onUncaught = (err: unknown) => uncaught.push(err);
      process.on("uncaughtException", onUncaught);
      try {
        const { db } = openPostgresStore("postgres://parley@127.0.0.1:1/none", { max: 2, bunSocket });
        const pending = db.prepare("SELECT 1").get().then(
          () => "answered",
          () => "refused",
        );
        await Bun.sleep(300);
        expect(uncaught).toEqual([]);
        await db.close();
        expect(await pending).toBe("refused");
      } finally {
        process.off("uncaughtException", onUncaught);
      }
    },
    15_000,
  );

  pgOnly(`PostgreSQL only (${on}): every connection cut by the server: the next statements reconnect`, async () => {
    const db = await store(bunSocket);
    await Promise.all(Array.from({ length: 8 }, () => db.prepare("SELECT pg_sleep(0.01)").get()));
    const killer = (await emptyPostgres()).url;
    const k = openPostgresStore(killer, { max: 1 }).db;
    const name = (await db.prepare<{ d: string }>("SELECT current_database() AS d").get())!.d;
    await k.prepare("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()").all(name);
    await k.close();
    await Bun.sleep(50);
    // the first statements may still go to a connection the pool has not seen close: retried once
    const again = async () => db.prepare<{ x: number }>("SELECT 1 AS x").get().catch(() => db.prepare<{ x: number }>("SELECT 1 AS x").get());
    expect((await Promise.all(Array.from({ length: 8 }, again))).map((r) => r!.x)).toEqual(Array(8).fill(1));
    await db.tx(() => db.prepare("SELECT 1").get());
  });
}

pgOnly("PostgreSQL only: a URL naming several hosts keeps postgres.js's own socket, which tries them in turn (the first refuses, the second answers)", async () => {
  const pg = await emptyPostgres();
  const u = new URL(pg.url);
  const url = `postgres://${u.username}${u.password ? `:${u.password}` : ""}@127.0.0.1:1,${u.hostname}:${u.port}${u.pathname}`;
  const { db } = openPostgresStore(url, { max: 2 });
  cleanups.push(pg.drop, () => db.close());
  expect(await db.prepare<{ x: number }>("SELECT 41 + 1 AS x").get()).toEqual({ x: 42 });
});
