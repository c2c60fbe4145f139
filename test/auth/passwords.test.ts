import { describe, expect, test } from "bun:test";
import { commonPasswordCount, isCommonPassword } from "../../src/auth/common-passwords.ts";
import { PasswordHasher } from "../../src/auth/passwords.ts";
import { Semaphore } from "../../src/auth/semaphore.ts";

describe("common passwords", () => {
  test("a list of several hundred, checked case-insensitively", () => {
    expect(commonPasswordCount()).toBeGreaterThan(300);
    for (const p of ["password", "PASSWORD123", "Qwerty123", "iloveyou", "12345678", "P@ssw0rd", "letmein"]) expect(isCommonPassword(p)).toBe(true);
    for (const p of ["Sturdy-Elephant-42", "correct horse battery staple"]) expect(isCommonPassword(p)).toBe(false);
  });
});

describe("PasswordHasher", () => {
  test("argon2id hashes that verify; wrong passwords and malformed hashes do not", async () => {
    const h = new PasswordHasher(2);
    const hash = await h.hash("Sturdy-Elephant-42");
    expect(hash).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
    expect(await h.verify("Sturdy-Elephant-42", hash)).toBe(true);
    expect(await h.verify("sturdy-elephant-42", hash)).toBe(false);
    expect(await h.verify("Sturdy-Elephant-42", "not a hash")).toBe(false);
  });

  test("without a hash (unknown email) it still verifies once, against a dummy, and answers false", async () => {
    const h = new PasswordHasher(2);
    const before = h.stats().verifications;
    expect(await h.verify("anything", null)).toBe(false);
    expect(h.stats().verifications).toBe(before + 1);
  });

  test("at most `concurrency` hashes run at once; the rest queue", async () => {
    const h = new PasswordHasher(2);
    const all = Array.from({ length: 6 }, (_, i) => h.hash(`password-number-${i}`));
    expect(h.stats()).toMatchObject({ active: 2, waiting: 4 });
    await Promise.all(all);
    expect(h.stats()).toMatchObject({ active: 0, waiting: 0, hashes: 6 });
  });
});

describe("Semaphore", () => {
  test("never more than the limit in flight, all tasks finish, errors release the slot", async () => {
    const s = new Semaphore(3);
    let running = 0;
    let peak = 0;
    const task = async (fail: boolean) => {
      running++;
      peak = Math.max(peak, running);
      await Bun.sleep(1);
      running--;
      if (fail) throw new Error("boom");
      return 1;
    };
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => s.run(() => task(i % 5 === 0))));
    expect(peak).toBe(3);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(16);
    expect(s.load).toEqual({ active: 0, waiting: 0 });
  });
});
