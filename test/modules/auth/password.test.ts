import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listOutbox } from "../../../src/notify/outbox.ts";
import { createAuthApp, loginRequest, signedIn, verifiedAccount, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp({ config: { publicUrl: "https://app.parley.example" } });
});
afterAll(() => t.close());

/** The reset link of the newest reset mail to `email` (the mail leaves after the response). */
async function resetToken(email: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const mail = (await listOutbox(t.deps.db, { to: email })).find((m) => m.kind === "reset");
    const url = mail?.text?.match(/https:\/\/app\.parley\.example\/reset-password\?token=([\w-]+)/);
    if (url) return url[1]!;
    await Bun.sleep(2);
  }
  throw new Error("no reset mail");
}

describe("forgot-password", () => {
  test("the same 200 for known and unknown emails; only the known one gets a mail", async () => {
    const a = await verifiedAccount(t);
    const known = await t.request("POST", "/api/auth/forgot-password", { body: { email: a.email } });
    const unknown = await t.request("POST", "/api/auth/forgot-password", { body: { email: "ghost-" + a.email } });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    expect(known.body).toEqual({ success: true, message: "If an account exists for this email, a reset link has been sent" });
    expect(await resetToken(a.email)).toHaveLength(43);
    await Bun.sleep(5);
    expect(await listOutbox(t.deps.db, { to: "ghost-" + a.email })).toEqual([]);
  });

  test("the mail has a link under the public URL; the token is stored only hashed", async () => {
    const a = await verifiedAccount(t);
    await t.request("POST", "/api/auth/forgot-password", { body: { email: a.email } });
    const token = await resetToken(a.email);
    const rows = (await t.deps.db.prepare("SELECT token_hash FROM password_resets").all());
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  test("reset mails per account are limited (the answer stays the same)", async () => {
    const a = await verifiedAccount(t);
    for (let i = 0; i < 3; i++) expect((await t.request("POST", "/api/auth/forgot-password", { body: { email: a.email } })).status).toBe(200);
    const rows = (await t.deps.db.prepare("SELECT count(*) AS n FROM password_resets WHERE user_id = (SELECT id FROM users WHERE email = ?)").get(a.email)) as any;
    expect(rows.n).toBe(1);
  });
});

describe("reset-password", () => {
  test("sets the new password once; old password and refresh tokens stop working", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    await t.request("POST", "/api/auth/forgot-password", { body: { email: a.email } });
    const token = await resetToken(a.email);
    const r = await t.request("POST", "/api/auth/reset-password", { body: { token, password: "Brand-new-pass-77" } });
    expect(r.status).toBe(200);
    expect(r.body.message).toBeString();
    expect((await loginRequest(t, a.email, a.password)).status).toBe(401);
    expect((await loginRequest(t, a.email, "Brand-new-pass-77")).status).toBe(200);
    expect((await t.request("POST", "/api/auth/refresh", { body: { refreshToken: s.refreshToken } })).status).toBe(401);
    const again = await t.request("POST", "/api/auth/reset-password", { body: { token, password: "Another-pass-88" } });
    expect(again.status).toBe(400);
    expect(Object.keys(again.body.errors)).toEqual(["token"]);
  });

  test("expired after 30 minutes", async () => {
    const a = await verifiedAccount(t);
    await t.request("POST", "/api/auth/forgot-password", { body: { email: a.email } });
    const token = await resetToken(a.email);
    t.clock.advance(30 * 60_000 + 1);
    const r = await t.request("POST", "/api/auth/reset-password", { body: { token, password: "Brand-new-pass-77" } });
    expect(r.status).toBe(400);
    expect(r.body.errors.token).toBeDefined();
  });

  test("parallel resets with one token: exactly one succeeds", async () => {
    const a = await verifiedAccount(t);
    await t.request("POST", "/api/auth/forgot-password", { body: { email: a.email } });
    const token = await resetToken(a.email);
    const results = await Promise.all(
      ["Parallel-pass-01", "Parallel-pass-02", "Parallel-pass-03"].map((password) => t.request("POST", "/api/auth/reset-password", { body: { token, password } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  test("the new password follows the password rules", async () => {
    const r = await t.request("POST", "/api/auth/reset-password", { body: { token: "whatever", password: "password1" } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors)).toEqual(["password"]);
  });
});

describe("change-password", () => {
  test("wrong current password: 400 errors.currentPassword", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const r = await t.request("POST", "/api/auth/change-password", { token: s.accessToken, body: { currentPassword: "Wrong-one-123", newPassword: "Fresh-password-9" } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors)).toEqual(["currentPassword"]);
  });

  test("changes the password and revokes refresh tokens", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const r = await t.request("POST", "/api/auth/change-password", { token: s.accessToken, body: { currentPassword: a.password, newPassword: "Fresh-password-9" } });
    expect(r.status).toBe(200);
    expect((await t.request("POST", "/api/auth/refresh", { body: { refreshToken: s.refreshToken } })).status).toBe(401);
    expect((await loginRequest(t, a.email, "Fresh-password-9")).status).toBe(200);
  });

  test("needs an access token", async () => {
    const r = await t.request("POST", "/api/auth/change-password", { body: { currentPassword: "x", newPassword: "Fresh-password-9" } });
    expect(r.status).toBe(401);
  });
});
