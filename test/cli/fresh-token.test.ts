import { expect, test } from "bun:test";
import { FreshToken } from "../../cli/fresh-token.ts";

test("the token is reused while young and minted again once it reaches the age limit", async () => {
  let now = 1_000_000;
  let minted = 0;
  const tokens = new FreshToken(async () => `t${++minted}`, 60_000, () => now);
  expect(await tokens.get()).toBe("t1");
  now += 59_999;
  expect(await tokens.get()).toBe("t1");
  now += 1; // 60 s old: replaced before use
  expect(await tokens.get()).toBe("t2");
  // a pairing that waited 20 minutes still calls with a token minted just now
  now += 20 * 60_000;
  expect(await tokens.get()).toBe("t3");
  expect(minted).toBe(3);
});

test("calls at the same moment share one mint; a failed mint is tried again next time", async () => {
  let minted = 0;
  let fail = true;
  const tokens = new FreshToken(
    async () => {
      minted++;
      if (fail) throw new Error("database busy");
      return `t${minted}`;
    },
    60_000,
    () => 0,
  );
  await expect(tokens.get()).rejects.toThrow("database busy");
  fail = false;
  const [a, b] = await Promise.all([tokens.get(), tokens.get()]);
  expect([a, b]).toEqual(["t2", "t2"]);
  expect(minted).toBe(2);
});
