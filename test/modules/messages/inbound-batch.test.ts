import { afterAll, beforeAll, expect, test } from "bun:test";
import { groupCollect, groupOnce } from "../../../src/db/group-memo.ts";
import type { DB } from "../../../src/db/store.ts";
import { InboundBatcher, type InboundStep } from "../../../src/modules/messages/inbound-batch.ts";
import { openTestStore } from "../../helpers/store.ts";

// The group commit of inbound messages on the real store (both engines): bodies pushed in one
// turn of the event loop share one transaction, in order; each resolves after the commit; a
// refusal before writing costs the others nothing; a failure after writing rolls the group back
// and every body runs again alone.

let store: { db: DB; close(): Promise<void> };
let db: DB;
const WS = Bun.randomUUIDv7();
beforeAll(async () => {
  store = await openTestStore();
  db = store.db;
  await db
    .prepare("INSERT INTO workspaces (id, name, plan_id, subscription_status, trial_ends_at, created_at, updated_at) VALUES (?, ?, 'growth', 'trialing', 0, 0, 0)")
    .run(WS, "Batch");
});
afterAll(() => store.close());

const insert = (phone: string) => db.prepare("INSERT INTO contacts (id, workspace_id, phone, created_at, updated_at) VALUES (?, ?, ?, 0, 0)").run(Bun.randomUUIDv7(), WS, phone);
const count = async (prefix: string) => Number(((await db.prepare("SELECT count(*) AS n FROM contacts WHERE workspace_id = ? AND phone LIKE ?").get(WS, `${prefix}%`)) as { n: number }).n);

class Refused extends Error {}

test("bodies pushed in one turn commit together, in order, and each resolves only after the commit", async () => {
  const batcher = new InboundBatcher(db);
  const log: string[] = [];
  const body = (i: number) => async (step: InboundStep) => {
    step.writing();
    await insert(`91000100${i}`);
    log.push(`ran ${i}`);
    db.afterCommit(() => log.push(`committed ${i}`));
    return i;
  };
  const all = [0, 1, 2, 3].map((i) => batcher.run(body(i), { savepoint: false }).then((v) => (log.push(`resolved ${v}`), v)));
  expect(await Promise.all(all)).toEqual([0, 1, 2, 3]);
  expect(log).toEqual(["ran 0", "ran 1", "ran 2", "ran 3", "committed 0", "committed 1", "committed 2", "committed 3", "resolved 0", "resolved 1", "resolved 2", "resolved 3"]);
  expect(await count("91000100")).toBe(4);
});

test("a body refused before it writes is refused alone; the rest of its group commits once", async () => {
  const batcher = new InboundBatcher(db);
  const runs: number[] = [];
  const body = (i: number) => async (step: InboundStep) => {
    runs.push(i);
    if (i === 1) throw new Refused("a repeat");
    step.writing();
    await insert(`91000200${i}`);
  };
  const results = await Promise.allSettled([0, 1, 2].map((i) => batcher.run(body(i), { savepoint: false })));
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(Refused);
  expect(runs).toEqual([0, 1, 2]);
  expect(await count("91000200")).toBe(2);
});

test("a body that fails after writing without a savepoint: the group rolls back and each body runs alone (the others stored once)", async () => {
  const batcher = new InboundBatcher(db);
  const runs: number[] = [];
  const committed: number[] = [];
  const body = (i: number) => async (step: InboundStep) => {
    runs.push(i);
    step.writing();
    await insert(`91000300${i}`);
    db.afterCommit(() => committed.push(i));
    if (i === 1) throw new Error("the store refused something");
  };
  const results = await Promise.allSettled([0, 1, 2].map((i) => batcher.run(body(i), { savepoint: false })));
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  // in the group: 0 and 1 (which failed); then alone: 0, 1, 2
  expect(runs).toEqual([0, 1, 0, 1, 2]);
  expect(committed).toEqual([0, 2]);
  expect(await count("91000300")).toBe(2);
});

test("with a savepoint, a body that fails after writing takes only its own writes back; the group still commits once", async () => {
  const batcher = new InboundBatcher(db);
  const runs: number[] = [];
  const committed: number[] = [];
  const body = (i: number) => async (step: InboundStep) => {
    runs.push(i);
    step.writing();
    await insert(`91000400${i}`);
    db.afterCommit(() => committed.push(i));
    if (i === 1) throw new Error("its media row was refused");
  };
  const results = await Promise.allSettled([0, 1, 2].map((i) => batcher.run(body(i), { savepoint: true })));
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect(runs).toEqual([0, 1, 2]);
  expect(committed).toEqual([0, 2]);
  expect(await count("91000400")).toBe(2);
});

test("a read made through groupOnce is made once per group, and every time outside one", async () => {
  const batcher = new InboundBatcher(db);
  let reads = 0;
  const read = () => groupOnce("test.key", async () => ++reads);
  const body = async (step: InboundStep) => {
    const v = await read();
    step.writing();
    return v;
  };
  expect(await Promise.all([0, 1, 2].map(() => batcher.run(body, { savepoint: false })))).toEqual([1, 1, 1]);
  expect(reads).toBe(1);
  // the next group reads again (another group may follow other writes)
  expect(await Promise.all([0, 1].map(() => batcher.run(body, { savepoint: false })))).toEqual([2, 2]);
  expect(await read()).toBe(3);
  expect(await read()).toBe(4);
});

test("values collected by the steps are written once at the end of the group; a step rolled back takes its own back", async () => {
  const batcher = new InboundBatcher(db);
  const writes: string[][] = [];
  const write = async (items: string[]) => void writes.push(items);
  const body = (i: number) => async (step: InboundStep) => {
    step.writing();
    expect(groupCollect("test.list", `v${i}`, write)).toBe(true);
    if (i === 1) throw new Error("rolled back");
  };
  const results = await Promise.allSettled([0, 1, 2].map((i) => batcher.run(body(i), { savepoint: true })));
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect(writes).toEqual([["v0", "v2"]]);
  // outside a group nothing is collected: the caller writes at once
  expect(groupCollect("test.list", "alone", write)).toBe(false);
});
