import { expect, test } from "bun:test";
import { hmacHex, sameHex, sha256Hex } from "../../src/crypto/hash.ts";
import { seal, unseal } from "../../src/crypto/seal.ts";
import { createHash, createHmac } from "node:crypto";

const KEY = "ab".repeat(32);

test("seal/unseal round-trips, with a fresh IV each time", () => {
  const a = seal(KEY, "secret value", "row-1");
  const b = seal(KEY, "secret value", "row-1");
  expect(a).not.toBe(b);
  expect(a.startsWith("v1:")).toBe(true);
  expect(unseal(KEY, a, "row-1")).toBe("secret value");
  expect(unseal(KEY, seal(KEY, "no aad"))).toBe("no aad");
});

test("a sealed value does not open with another key, another owner, or altered bytes", () => {
  const sealed = seal(KEY, "secret value", "row-1");
  expect(() => unseal("cd".repeat(32), sealed, "row-1")).toThrow();
  expect(() => unseal(KEY, sealed, "row-2")).toThrow();
  const raw = Buffer.from(sealed.slice(3), "base64");
  raw[raw.length - 1]! ^= 1;
  expect(() => unseal(KEY, "v1:" + raw.toString("base64"), "row-1")).toThrow();
  expect(() => unseal(KEY, "v2:abc", "row-1")).toThrow(/format/);
  expect(() => seal("abcd", "x")).toThrow(/32 bytes/);
});

test("hashes match node:crypto; sameHex is strict", () => {
  expect(sha256Hex("abc")).toBe(createHash("sha256").update("abc").digest("hex"));
  expect(hmacHex("k", "m")).toBe(createHmac("sha256", "k").update("m").digest("hex"));
  const h = hmacHex("k", "m");
  expect(sameHex(h, h.toUpperCase())).toBe(true);
  expect(sameHex(h, h.slice(2))).toBe(false);
  expect(sameHex(h, "zz" + h.slice(2))).toBe(false);
  expect(sameHex(h, undefined)).toBe(false);
  expect(sameHex(h, "")).toBe(false);
});
