import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAuthApp, lastCode, newAccount, registered, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp({ config: { trialDays: 14 } });
});
afterAll(() => t.close());

describe("register", () => {
  test("201 with the registration result; the workspace is trialing on Growth and the user is its owner", async () => {
    const account = newAccount({ email: "  Mixed.Case@Example.com ", mobile: "919876543210" });
    const r = await t.request("POST", "/api/auth/register", { body: account });
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toEqual({
      requiresVerification: true,
      registrationToken: expect.any(String),
      nextStep: "mobile",
      phoneMasked: "91******3210",
      emailMasked: "m***e@example.com",
    });
    const user = (await t.deps.db.prepare("SELECT * FROM users WHERE email = ?").get("mixed.case@example.com")) as any;
    expect(user.role).toBe("owner");
    expect(user.mobile_verified_at).toBeNull();
    expect(user.password_hash).toStartWith("$argon2id$");
    const ws = (await t.deps.db.prepare("SELECT * FROM workspaces WHERE id = ?").get(user.workspace_id)) as any;
    expect(ws).toMatchObject({ name: account.tenantName, plan_id: "growth", subscription_status: "trialing" });
    expect(ws.trial_ends_at).toBe(t.clock.now().getTime() + 14 * 86_400_000);
  });

  test("the registration token is not a login: it cannot reach the profile", async () => {
    const a = await registered(t);
    const r = await t.request("GET", "/api/auth/profile", { token: a.registrationToken });
    expect(r.status).toBe(401);
  });

  test("duplicate email (any case) is 409 CONFLICT and creates nothing", async () => {
    const a = await registered(t);
    const before = ((await t.deps.db.prepare("SELECT count(*) AS n FROM workspaces").get()) as any).n;
    const r = await t.request("POST", "/api/auth/register", { body: newAccount({ email: a.email.toUpperCase() }) });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CONFLICT");
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM workspaces").get()) as any).n).toBe(before);
  });

  test("parallel registrations of one email: exactly one succeeds", async () => {
    const account = newAccount();
    const results = await Promise.all(Array.from({ length: 5 }, () => t.request("POST", "/api/auth/register", { body: account })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  test("common passwords are refused with errors.password", async () => {
    for (const password of ["password123", "Qwerty123", "iloveyou1"]) {
      const r = await t.request("POST", "/api/auth/register", { body: newAccount({ password, confirmPassword: password }) });
      expect(r.status).toBe(400);
      expect(r.body.errors.password).toContain("common");
    }
  });

  test("confirmPassword must equal password", async () => {
    const r = await t.request("POST", "/api/auth/register", { body: newAccount({ confirmPassword: "Something-else-42" }) });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors)).toEqual(["confirmPassword"]);
  });
});

describe("verification", () => {
  test("mobile then email, with nextStep values mobile, email, done", async () => {
    const a = await registered(t);
    const token = a.registrationToken;
    const sent = await t.request("POST", "/api/auth/mobile/send-otp", { token });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toEqual({ phoneMasked: expect.stringMatching(/^\d\d\*+\d{4}$/), expiresIn: 600 });
    const verified = await t.request("POST", "/api/auth/mobile/verify-otp", { token, body: { otpCode: await lastCode(t, a.mobile) } });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ nextStep: "email", emailMasked: expect.stringMatching(/^a\*\*\*.@example\.com$/) });
    const mailSent = await t.request("POST", "/api/auth/email/send-verification-code", { token });
    expect(mailSent.status).toBe(200);
    expect(mailSent.body.data).toEqual({ emailMasked: expect.any(String), expiresIn: 600 });
    const done = await t.request("POST", "/api/auth/email/verify", { token, body: { code: await lastCode(t, a.email) } });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ nextStep: "done", verified: true });
    const user = (await t.deps.db.prepare("SELECT mobile_verified_at AS m, email_verified_at AS e FROM users WHERE email = ?").get(a.email)) as any;
    expect(user.m).toBeNumber();
    expect(user.e).toBeNumber();
  });

  test("the token may ride in the body; email/verify takes the otpCode alias", async () => {
    const a = await registered(t);
    const registrationToken = a.registrationToken;
    expect((await t.request("POST", "/api/auth/mobile/send-otp", { body: { registrationToken } })).status).toBe(200);
    const v = await t.request("POST", "/api/auth/mobile/verify-otp", { body: { registrationToken, otpCode: await lastCode(t, a.mobile) } });
    expect(v.status).toBe(200);
    expect((await t.request("POST", "/api/auth/email/send-verification-code", { body: { registrationToken } })).status).toBe(200);
    const done = await t.request("POST", "/api/auth/email/verify", { body: { registrationToken, otpCode: await lastCode(t, a.email) } });
    expect(done.body.data).toEqual({ nextStep: "done", verified: true });
  });

  test("email code before the mobile step: 409 CONFLICT; a mobile step done twice: 409", async () => {
    const a = await registered(t);
    const token = a.registrationToken;
    expect((await t.request("POST", "/api/auth/email/send-verification-code", { token })).status).toBe(409);
    expect((await t.request("POST", "/api/auth/email/verify", { token, body: { code: "123456" } })).status).toBe(409);
    await t.request("POST", "/api/auth/mobile/send-otp", { token });
    await t.request("POST", "/api/auth/mobile/verify-otp", { token, body: { otpCode: await lastCode(t, a.mobile) } });
    const again = await t.request("POST", "/api/auth/mobile/send-otp", { token });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("CONFLICT");
  });

  test("a wrong code is 400 VALIDATION_ERROR on otpCode (mobile) or code (email)", async () => {
    const a = await registered(t);
    const token = a.registrationToken;
    await t.request("POST", "/api/auth/mobile/send-otp", { token });
    const wrong = await lastCode(t, a.mobile) === "000000" ? "111111" : "000000";
    const r = await t.request("POST", "/api/auth/mobile/verify-otp", { token, body: { otpCode: wrong } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual({ otpCode: "is incorrect" });
    await t.request("POST", "/api/auth/mobile/verify-otp", { token, body: { otpCode: await lastCode(t, a.mobile) } });
    await t.request("POST", "/api/auth/email/send-verification-code", { token });
    const e = await t.request("POST", "/api/auth/email/verify", { token, body: { code: await lastCode(t, a.email) === "000000" ? "111111" : "000000" } });
    expect(e.status).toBe(400);
    expect(Object.keys(e.body.errors)).toEqual(["code"]);
  });

  test("missing, malformed, expired or access tokens are 401 on the verification routes", async () => {
    const a = await registered(t);
    for (const token of [undefined, "nonsense", a.registrationToken.slice(0, -3) + "abc"]) {
      const r = await t.request("POST", "/api/auth/mobile/send-otp", { token });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("UNAUTHORIZED");
    }
    t.clock.advance(31 * 60_000);
    expect((await t.request("POST", "/api/auth/mobile/send-otp", { token: a.registrationToken })).status).toBe(401);
  });
});
