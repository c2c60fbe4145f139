import { expect, test } from "bun:test";
import { KeyedSerializer } from "../../../src/network/baileys/chat-queue.ts";

/** A task that finishes when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

test("tasks of one key run one after another, in order, even when an earlier one is slower", async () => {
  const q = new KeyedSerializer();
  const order: string[] = [];
  const slowImage = gate();
  const a = q.run("s1:919800000001@s.whatsapp.net", async () => {
    await slowImage.opened; // an image whose download takes a while
    order.push("image");
  });
  const b = q.run("s1:919800000001@s.whatsapp.net", async () => {
    order.push("text");
  });
  await Bun.sleep(1);
  expect(order).toEqual([]);
  slowImage.open();
  await Promise.all([a, b]);
  expect(order).toEqual(["image", "text"]);
});

test("different keys run in parallel", async () => {
  const q = new KeyedSerializer();
  const order: string[] = [];
  const slow = gate();
  const a = q.run("chat-a", async () => {
    await slow.opened;
    order.push("a");
  });
  await q.run("chat-b", async () => {
    order.push("b");
  });
  expect(order).toEqual(["b"]);
  slow.open();
  await a;
  expect(order).toEqual(["b", "a"]);
});

test("a failing task is reported and does not stop the next one", async () => {
  const q = new KeyedSerializer();
  const errors: unknown[] = [];
  const order: string[] = [];
  const onError = (err: unknown) => errors.push(err);
  q.run("k", async () => {
    throw new Error("download failed");
  }, onError);
  await q.run("k", async () => {
    order.push("after");
  }, onError);
  expect(order).toEqual(["after"]);
  expect(errors.map((e) => (e as Error).message)).toEqual(["download failed"]);
});

test("a key's chain is dropped when it runs empty", async () => {
  const q = new KeyedSerializer();
  const g = gate();
  const a = q.run("k1", () => g.opened);
  const b = q.run("k1", async () => {});
  const c = q.run("k2", async () => {});
  expect(q.size).toBe(2);
  await c;
  expect(q.size).toBe(1);
  g.open();
  await Promise.all([a, b]);
  expect(q.size).toBe(0);
});
