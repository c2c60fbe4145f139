import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../helpers/app.ts";

// db.tx(fn, { first }): `first` runs inside the transaction before `fn`; on PostgreSQL the reads
// it starts go out with BEGIN and the write lock and run once the lock is granted.

const t = await createTestApp();
afterAll(() => t.close());
const db = t.deps.db;
const count = db.prepare<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE kind = 'tx-first'");
const insert = db.prepare("INSERT INTO jobs (id, kind, payload, status, run_at, attempts, max_attempts, created_at, updated_at) VALUES (?, 'tx-first', 'null', 'done', 0, 0, 1, 0, 0)");

test("first runs inside the transaction, before fn, and its reads answer fn", async () => {
  const order: string[] = [];
  let read: Promise<{ n: number } | undefined> | undefined;
  const n = await db.tx(
    async () => {
      order.push(`fn ${db.inTx}`);
      return (await read!)!.n;
    },
    {
      first: () => {
        order.push(`first ${db.inTx}`);
        read = count.get();
      },
    },
  );
  expect(order).toEqual(["first true", "fn true"]);
  expect(n).toBe(0);
});

test("a read first starts runs under the write lock: it sees what the transaction holding the lock before it committed", async () => {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let inserted!: () => void;
  const wrote = new Promise<void>((r) => (inserted = r));
  const a = db.tx(async () => {
    await insert.run(Bun.randomUUIDv7());
    inserted();
    await gate;
  });
  await wrote; // a holds the lock now
  let read: Promise<{ n: number } | undefined> | undefined;
  const b = db.tx(async () => (await read!)!.n, { first: () => void (read = count.get()) });
  await Bun.sleep(20);
  open();
  await a;
  expect(await b).toBe(1);
});

test("a failed transaction with first rolls back whole; nested, first runs in the savepoint", async () => {
  await expect(
    db.tx(async () => {
      await insert.run(Bun.randomUUIDv7());
      throw new Error("no");
    }, { first: () => void insert.run(Bun.randomUUIDv7()).catch(() => {}) }),
  ).rejects.toThrow("no");
  expect((await count.get())!.n).toBe(1); // only the one of the test before
  const seen = await db.tx(async () => db.tx(async () => "inner", { first: () => void expect(db.inTx).toBe(true) }));
  expect(seen).toBe("inner");
});
