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

test("with concurrency 2 a turn's items start their flush while the one before still runs; a third waits for a free flush", async () => {
  const started: number[][] = [];
  const finish: (() => void)[] = [];
  const q = new TurnQueue<number>(
    (items) =>
      new Promise<void>((resolve) => {
        started.push(items);
        finish.push(resolve);
      }),
    2,
  );
  const turn = () => new Promise((r) => setImmediate(r));
  q.push(1);
  await turn();
  q.push(2);
  await turn();
  expect(started).toEqual([[1], [2]]); // the second started before the first ended
  q.push(3);
  q.push(4);
  await turn();
  await turn();
  expect(started).toEqual([[1], [2]]); // two under way: 3 and 4 wait
  finish[0]!();
  await turn();
  await turn();
  expect(started).toEqual([[1], [2], [3, 4]]);
  finish[1]!();
  finish[2]!();
});

test("the default is one flush at a time", async () => {
  const started: number[][] = [];
  const finish: (() => void)[] = [];
  const q = new TurnQueue<number>(
    (items) =>
      new Promise<void>((resolve) => {
        started.push(items);
        finish.push(resolve);
      }),
  );
  const turn = () => new Promise((r) => setImmediate(r));
  q.push(1);
  await turn();
  q.push(2);
  await turn();
  await turn();
  expect(started).toEqual([[1]]);
  finish[0]!();
  await turn();
  await turn();
  expect(started).toEqual([[1], [2]]);
  finish[1]!();
});
