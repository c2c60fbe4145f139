import { afterEach, expect, test } from "bun:test";
import { openPostgresStore } from "../../src/db/postgres.ts";
import type { DB } from "../../src/db/store.ts";
import { emptyPostgres, testEngine } from "../helpers/postgres.ts";

// The PostgreSQL store's transactions: one reserved connection, BEGIN and the write lock sent
// together, and the two cases postgres.js leaves to the user of a reserved connection (the
// pool's end() while one is under way, the connection cut during one).

const pgOnly = test.skipIf(testEngine !== "postgres");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function store(max = 3): Promise<{ db: DB; url: string }> {
  const pg = await emptyPostgres();
  const { db } = openPostgresStore(pg.url, { max });
  cleanups.push(pg.drop, () => db.close());
  await db.exec("CREATE TABLE t (id text PRIMARY KEY, n bigint NOT NULL)");
  return { db, url: pg.url };
}

const counter = (db: DB) => db.prepare<{ n: number }>("SELECT n FROM t WHERE id = ?");

pgOnly("PostgreSQL only: a transaction is BEGIN and the lock in one round trip, then one per statement and the COMMIT; a savepoint goes with the next statement", async () => {
  const { db } = await store();
  const before = db.counts!;
  await db.tx(async () => {
    await db.prepare("INSERT INTO t VALUES (?, ?)").run("a", 1);
  });
  const one = db.counts!;
  expect(one.transactions - before.transactions).toBe(1);
  expect(one.statements - before.statements).toBe(4); // BEGIN, the lock, the INSERT, COMMIT
  expect(one.roundTrips - before.roundTrips).toBe(3);
  await db.tx(async () => {
    await db.tx(() => db.prepare("UPDATE t SET n = n + 1 WHERE id = ?").run("a"));
  });
  const nested = db.counts!;
  expect(nested.statements - one.statements).toBe(5); // and the SAVEPOINT, in the UPDATE's flight
  expect(nested.roundTrips - one.roundTrips).toBe(3);
  expect((await counter(db).get("a"))!.n).toBe(2);
  // a statement outside a transaction: one of each
  const after = db.counts!;
  await counter(db).get("a");
  expect(db.counts!.roundTrips - after.roundTrips).toBe(1);
});

pgOnly("PostgreSQL only: read-then-write transactions in parallel still run one at a time (the write lock), and a rolled-back savepoint keeps the rest", async () => {
  const { db } = await store(5);
  await db.prepare("INSERT INTO t VALUES (?, ?)").run("c", 0);
  await Promise.all(
    Array.from({ length: 20 }, () =>
      db.tx(async () => {
        const { n } = (await counter(db).get("c"))!;
        await db.prepare("UPDATE t SET n = ? WHERE id = ?").run(n + 1, "c");
        await db.tx(() => db.prepare("INSERT INTO t VALUES (?, ?)").run("c", 0)).catch(() => {}); // duplicate key: its savepoint rolls back
      }),
    ),
  );
  expect((await counter(db).get("c"))!.n).toBe(20);
});

pgOnly("PostgreSQL only: a failed statement the transaction's code caught still fails the transaction (its COMMIT answers ROLLBACK), and nothing of it is stored", async () => {
  const { db } = await store();
  await db.prepare("INSERT INTO t VALUES (?, ?)").run("d", 0);
  await expect(
    db.tx(async () => {
      await db.prepare("UPDATE t SET n = 5 WHERE id = ?").run("d");
      await db.prepare("INSERT INTO t VALUES (?, ?)").run("d", 1).catch(() => {}); // no savepoint: the transaction is aborted
    }),
  ).rejects.toThrow("rolled back");
  expect((await counter(db).get("d"))!.n).toBe(0);
  // the connection went back clean
  await db.tx(() => db.prepare("UPDATE t SET n = 7 WHERE id = ?").run("d"));
  expect((await counter(db).get("d"))!.n).toBe(7);
});

pgOnly("PostgreSQL only: the store closes while transactions are under way: they commit, the close waits for them (not for the pool's time-out), and a new one is refused", async () => {
  const pg = await emptyPostgres();
  cleanups.push(pg.drop);
  const { db } = openPostgresStore(pg.url, { max: 3 });
  await db.exec("CREATE TABLE t (id text PRIMARY KEY, n bigint NOT NULL)");
  const under = Array.from({ length: 3 }, (_, i) =>
    db.tx(async () => {
      await db.prepare("INSERT INTO t VALUES (?, ?)").run(`k${i}`, i);
      await Bun.sleep(50);
      await db.prepare("UPDATE t SET n = n + 10 WHERE id = ?").run(`k${i}`);
    }),
  );
  await Bun.sleep(10);
  const closing = db.close();
  await expect(db.tx(async () => 1)).rejects.toThrow("closed");
  await Promise.all(under);
  await closing; // before the fix the pool's end() waited out its 5 s for the released connections (the test's own time-out)
  const check = openPostgresStore(pg.url, { max: 1 }).db;
  try {
    expect(await check.prepare<{ id: string; n: number }>("SELECT id, n FROM t ORDER BY id").all()).toEqual([
      { id: "k0", n: 10 },
      { id: "k1", n: 11 },
      { id: "k2", n: 12 },
    ]);
  } finally {
    await check.close();
  }
});

pgOnly("PostgreSQL only: a transaction whose connection is cut fails without a statement written to the dead socket, and the pool goes on", async () => {
  const { db, url } = await store(2);
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on("uncaughtException", onUncaught);
  try {
    const err = await db
      .tx(async () => {
        const { pid } = (await db.prepare<{ pid: number }>("SELECT pg_backend_pid() AS pid").get())!;
        await db.prepare("INSERT INTO t VALUES (?, ?)").run("e", 1);
        // cut from another process's connection
        const killer = openPostgresStore(url, { max: 1 }).db;
        await killer.prepare("SELECT pg_terminate_backend(?)").get(pid);
        await killer.close();
        await Bun.sleep(100);
        await db.prepare("INSERT INTO t VALUES (?, ?)").run("f", 1).catch(() => {}); // caught: the transaction goes on to its COMMIT
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).not.toBeNull();
    await Bun.sleep(50);
    expect(uncaught).toEqual([]);
    // nothing of it was stored, and the pool and transactions work again (the cut connection reconnects)
    for (let i = 0; i < 5; i++) await db.tx(() => db.prepare("INSERT INTO t VALUES (?, ?)").run(`g${i}`, i));
    expect(await db.prepare<{ id: string }>("SELECT id FROM t ORDER BY id").all()).toEqual(["g0", "g1", "g2", "g3", "g4"].map((id) => ({ id })));
  } finally {
    process.off("uncaughtException", onUncaught);
  }
});
