import { afterAll, expect, test } from "bun:test";
import type { ChainedTx } from "../../src/db/store.ts";
import { createTestApp } from "../helpers/app.ts";

// db.tx(fn, { committing }): on PostgreSQL, called once the COMMIT is on its way; a transaction
// started with the `next` it gets runs on the same connection, right behind that COMMIT.

const t = await createTestApp();
afterAll(() => t.close());
const db = t.deps.db;
const PG = db.engine === "postgres";
const KIND = "tx-chain";
const count = db.prepare<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE kind = '${KIND}'`);
const insert = (id = Bun.randomUUIDv7()) => db.prepare(`INSERT INTO jobs (id, kind, payload, status, run_at, attempts, max_attempts, created_at, updated_at) VALUES (?, '${KIND}', 'null', 'done', 0, 0, 1, 0, 0)`).run(id);
const backend = () => db.prepare<{ pid: number }>("SELECT pg_backend_pid() AS pid").get().then((r) => r!.pid);
const clear = () => db.prepare(`DELETE FROM jobs WHERE kind = '${KIND}'`).run();

test.if(PG)("PostgreSQL only: a transaction chained behind a COMMIT runs on the same connection and sees what that one committed", async () => {
  await clear();
  let chained: Promise<{ pid: number; n: number }> | undefined;
  const pid = await db.tx(
    async () => {
      await insert();
      return backend();
    },
    {
      committing: (next: ChainedTx) => {
        let read: Promise<{ n: number } | undefined>;
        chained = next(async () => ({ pid: await backend(), n: (await read)!.n }), { first: () => void (read = count.get()) });
      },
    },
  );
  expect(chained).toBeDefined();
  const c = await chained!;
  expect(c.pid).toBe(pid);
  expect(c.n).toBe(1);
  // the connection went back to the pool once the chain ended: the store goes on working
  expect((await count.get())!.n).toBe(1);
  expect(await db.tx(async () => (await count.get())!.n)).toBe(1);
});

test.if(PG)("PostgreSQL only: when the COMMIT answers ROLLBACK the first transaction fails and the one chained behind it still commits", async () => {
  await clear();
  let chained: Promise<void> | undefined;
  const first = db.tx(
    async () => {
      await insert();
      await db.prepare("SELECT 1/0 AS x").get().catch(() => {}); // aborts the transaction
    },
    { committing: (next) => void (chained = next(async () => void (await insert()))) },
  );
  await expect(first).rejects.toThrow("rolled back");
  await chained;
  expect((await count.get())!.n).toBe(1);
});

test("committing is not called for a transaction that fails before its COMMIT, nor on SQLite", async () => {
  await clear();
  let calls = 0;
  await expect(
    db.tx(async () => {
      throw new Error("no");
    }, { committing: () => void calls++ }),
  ).rejects.toThrow("no");
  expect(calls).toBe(0);
  await db.tx(async () => void (await insert()), { committing: () => void calls++ });
  expect(calls).toBe(PG ? 1 : 0);
});

test.if(PG)("PostgreSQL only: a chained transaction waits for the write lock like any other: one already waiting for it goes first", async () => {
  await clear();
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const hasLock = new Promise<void>((r) => (locked = r));
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let chained: Promise<void> | undefined;
  const a = db.tx(
    async () => {
      await insert();
      locked();
      await held;
    },
    { committing: (next) => void (chained = next(async () => void order.push("chained"))) },
  );
  await hasLock;
  const other = db.tx(async () => {
    order.push("other");
    await gate;
  });
  await Bun.sleep(30); // `other` waits for the lock on the server now
  release();
  await a;
  await Bun.sleep(30);
  expect(order).toEqual(["other"]); // the chained one waits behind it
  open();
  await Promise.all([other, chained]);
  expect(order).toEqual(["other", "chained"]);
});
