import { afterAll, beforeAll, expect, test } from "bun:test";
import { pruneAuthRows } from "../../../src/modules/auth/periodic.ts";
import { createAuthApp, lastCode, registered, signedIn, verifiedAccount, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp();
});
afterAll(() => t.close());

const count = (table: string) => (t.deps.sqlite.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

test("auth.prune deletes spent rows only once they no longer matter", async () => {
  expect(t.services.periodic.map((p) => p.name)).toContain("auth.prune");
  await t.request("GET", "/api/auth/captcha");
  const a = await verifiedAccount(t);
  const s = await signedIn(t, a.email, a.password);
  await t.request("POST", "/api/auth/logout", { body: { refreshToken: s.refreshToken } });
  const pending = await registered(t);
  await t.request("POST", "/api/auth/mobile/send-otp", { token: pending.registrationToken });
  expect(lastCode(t, pending.mobile)).toMatch(/^\d{6}$/);

  pruneAuthRows(t.deps);
  expect(count("captchas")).toBe(1);
  expect(count("otp_codes")).toBe(3);
  expect(count("refresh_tokens")).toBe(1);

  t.clock.advance(30 * 60_000); // codes expired, but still inside the hourly send window
  pruneAuthRows(t.deps);
  expect(count("captchas")).toBe(0);
  expect(count("otp_codes")).toBe(3);

  t.clock.advance(8 * 86_400_000);
  pruneAuthRows(t.deps);
  expect(count("otp_codes")).toBe(0);
  expect(count("refresh_tokens")).toBe(0); // revoked a week ago
  expect(count("notifications")).toBe(3);
  t.clock.advance(30 * 86_400_000);
  pruneAuthRows(t.deps);
  expect(count("notifications")).toBe(0);
});
