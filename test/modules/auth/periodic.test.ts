import { afterAll, beforeAll, expect, test } from "bun:test";
import { pruneAuthRows } from "../../../src/modules/auth/periodic.ts";
import { createAuthApp, lastCode, registered, signedIn, verifiedAccount, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp();
});
afterAll(() => t.close());

const count = async (table: string) => ((await t.deps.db.prepare(`SELECT count(*) AS n FROM ${table}`).get()) as { n: number }).n;

test("auth.prune deletes spent rows only once they no longer matter", async () => {
  expect(t.services.periodic.map((p) => p.name)).toContain("auth.prune");
  await t.request("GET", "/api/auth/captcha");
  const a = await verifiedAccount(t);
  const s = await signedIn(t, a.email, a.password);
  await t.request("POST", "/api/auth/logout", { body: { refreshToken: s.refreshToken } });
  const pending = await registered(t);
  await t.request("POST", "/api/auth/mobile/send-otp", { token: pending.registrationToken });
  expect(await lastCode(t, pending.mobile)).toMatch(/^\d{6}$/);

  await pruneAuthRows(t.deps);
  expect(await count("captchas")).toBe(1);
  expect(await count("otp_codes")).toBe(3);
  expect(await count("refresh_tokens")).toBe(1);

  t.clock.advance(30 * 60_000); // codes expired, but still inside the hourly send window
  await pruneAuthRows(t.deps);
  expect(await count("captchas")).toBe(0);
  expect(await count("otp_codes")).toBe(3);

  t.clock.advance(8 * 86_400_000);
  await pruneAuthRows(t.deps);
  expect(await count("otp_codes")).toBe(0);
  expect(await count("refresh_tokens")).toBe(0); // revoked a week ago
  expect(await count("notifications")).toBe(3);
  t.clock.advance(30 * 86_400_000);
  await pruneAuthRows(t.deps);
  expect(await count("notifications")).toBe(0);
});

test("auth.purge-unverified deletes accounts still unverified 24 hours after registering, with their lone workspace", async () => {
  const s = await createAuthApp();
  try {
    const job = s.services.periodic.find((p) => p.name === "auth.purge-unverified");
    expect(job).toBeDefined();
    const n = async (sql: string, ...args: string[]) => ((await s.deps.db.prepare(sql).get(...args)) as { n: number }).n;
    const workspaceOf = async (email: string) => ((await s.deps.db.prepare("SELECT workspace_id AS w FROM users WHERE email = ?").get(email)) as { w: string }).w;

    const squatter = await registered(s); // never verifies
    await s.request("POST", "/api/auth/mobile/send-otp", { token: squatter.registrationToken });
    const halfway = await registered(s); // verifies the mobile only
    await s.request("POST", "/api/auth/mobile/send-otp", { token: halfway.registrationToken });
    await s.request("POST", "/api/auth/mobile/verify-otp", { token: halfway.registrationToken, body: { otpCode: await lastCode(s, halfway.mobile) } });
    const done = await verifiedAccount(s);
    const squatterWs = await workspaceOf(squatter.email);
    const halfwayWs = await workspaceOf(halfway.email);
    // an unverified user in a workspace that has other members: only the user goes
    const shared = await workspaceOf(done.email);
    const strayId = Bun.randomUUIDv7();
    const at = s.clock.now().getTime();
    await s.deps.db
      .prepare("INSERT INTO users (id, workspace_id, email, name, password_hash, role, created_at, updated_at) VALUES (?, ?, 'stray@example.com', 'Stray', 'x', 'viewer', ?, ?)")
      .run(strayId, shared, at, at);

    s.clock.advance(23 * 3_600_000);
    const late = await registered(s); // registered 23 hours after the others
    await job!.run();
    expect(await n("SELECT count(*) AS n FROM users")).toBe(5); // nothing is 24 hours old yet

    s.clock.advance(3_600_000);
    await job!.run();
    const emails = ((await s.deps.db.prepare("SELECT email FROM users ORDER BY email").all()) as { email: string }[]).map((r) => r.email);
    expect(emails.sort()).toEqual([done.email, late.email].sort());
    expect(await n("SELECT count(*) AS n FROM workspaces WHERE id IN (?, ?)", squatterWs, halfwayWs)).toBe(0);
    expect(await n("SELECT count(*) AS n FROM workspaces WHERE id = ?", shared)).toBe(1);
    // the cascade took their codes too
    expect(await n("SELECT count(*) AS n FROM otp_codes WHERE user_id NOT IN (SELECT id FROM users)")).toBe(0);
    await job!.run(); // safe to run twice
    expect(await n("SELECT count(*) AS n FROM users")).toBe(2);

    // the real owner of the email can now register it
    const again = await registered(s, { email: squatter.email });
    expect(again.response.status).toBe(201);
  } finally {
    await s.close();
  }
});
