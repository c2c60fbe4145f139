import { expect, test } from "bun:test";
import { TurnQueue } from "../../src/db/turn-queue.ts";

test("items pushed in one turn of the event loop are flushed together, later ones in a new batch", async () => {
  const batches: number[][] = [];
  const q = new TurnQueue<number>((items) => {
    batches.push(items);
  });
  q.push(1);
  q.push(2);
  q.push(3);
  expect(batches).toEqual([]); // nothing before the turn ends
  await new Promise((r) => setImmediate(r));
  q.push(4);
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  expect(batches).toEqual([[1, 2, 3], [4]]);
});

test("a push during a flush goes to the next batch", async () => {
  const batches: number[][] = [];
  const q: TurnQueue<number> = new TurnQueue<number>((items) => {
    batches.push(items);
    if (items[0] === 1) q.push(2);
  });
  q.push(1);
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  expect(batches).toEqual([[1], [2]]);
});
