import { expect, test } from "bun:test";
import { firstUse, TextMemo } from "../src/memo.ts";

test("a text memo computes a key once, starts over when full, and remembers nothing for a throw", () => {
  const calls: string[] = [];
  const memo = new TextMemo<string>(2);
  const upper = (k: string) => memo.get(k, () => (calls.push(k), k.toUpperCase()));
  expect(upper("a")).toBe("A");
  expect(upper("a")).toBe("A");
  expect(upper("b")).toBe("B");
  expect(calls).toEqual(["a", "b"]);
  upper("c"); // full: starts over with c alone
  upper("a");
  expect(calls).toEqual(["a", "b", "c", "a"]);
  expect(() => memo.get("x", () => { throw new Error("bad"); })).toThrow("bad");
  expect(memo.get("x", () => "ok")).toBe("ok");
});

test("firstUse builds its value on the first call only, and keeps it (an undefined one too)", () => {
  let builds = 0;
  const value = firstUse(() => ({ n: ++builds }));
  expect(builds).toBe(0);
  const first = value();
  expect(value()).toBe(first);
  expect(builds).toBe(1);
  let none = 0;
  const nothing = firstUse(() => void none++);
  nothing();
  nothing();
  expect(none).toBe(1);
});
