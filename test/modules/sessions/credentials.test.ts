import { expect, test } from "bun:test";
import { decryptCredentials, encryptCredentials } from "../../../src/modules/sessions/credentials.ts";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { eventually, linkSession, newSession, storedCredentials } from "./helpers.ts";

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

test("a stored link that no longer decrypts (the key changed) is dropped: connect pairs anew with a QR", async () => {
  const t = await createTestApp();
  try {
    const ws = await createWorkspace(t);
    const id = await newSession(t, ws);
    await linkSession(t, ws, id);
    await t.request("POST", `/api/sim/sessions/${id}/logout`, { token: ws.owner.token, body: { reason: "replaced" } });
    await eventually(async () => expect(await t.deps.db.prepare("SELECT status FROM chat_sessions WHERE id = ?").get(id)).toEqual({ status: "disconnected" }));
    await t.deps.db.prepare("UPDATE chat_sessions SET credentials = ? WHERE id = ?").run(encryptCredentials(OTHER, id, "simcred_x"), id);
    const r = await t.request("POST", `/api/v1/chatapp/${id}/connect`, { token: ws.owner.token });
    expect(r.body.data.status).toBe("qr_pending");
    expect((await t.request("GET", `/api/v1/chatapp/${id}/qr`, { token: ws.owner.token })).status).toBe(200);
    expect((await storedCredentials(t, id))).toBeNull();
  } finally {
    await t.close();
  }
});
