import { expect, test } from "bun:test";
import { decryptCredentials, encryptCredentials } from "../../../src/modules/sessions/credentials.ts";

const KEY = "ab".repeat(32);
const OTHER = "cd".repeat(32);

test("AES-256-GCM round trip; each sealing uses a fresh IV", () => {
  const a = encryptCredentials(KEY, "s1", '{"secret":"linked device"}');
  const b = encryptCredentials(KEY, "s1", '{"secret":"linked device"}');
  expect(a).toStartWith("v1:");
  expect(a).not.toBe(b);
  expect(a).not.toContain("linked device");
  expect(decryptCredentials(KEY, "s1", a)).toBe('{"secret":"linked device"}');
});

test("another key, another session (bound as additional data) or a flipped byte do not decrypt", () => {
  const sealed = encryptCredentials(KEY, "s1", "creds");
  expect(() => decryptCredentials(OTHER, "s1", sealed)).toThrow();
  expect(() => decryptCredentials(KEY, "s2", sealed)).toThrow();
  const raw = Buffer.from(sealed.slice(3), "base64");
  raw[raw.length - 1]! ^= 1;
  expect(() => decryptCredentials(KEY, "s1", "v1:" + raw.toString("base64"))).toThrow();
  expect(() => decryptCredentials(KEY, "s1", "v0:xyz")).toThrow();
});

test("the key must be 32 bytes", () => {
  expect(() => encryptCredentials("abcd", "s1", "x")).toThrow(/32 bytes/);
});
