import { createWorkspace } from "../../helpers/fixtures.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createAuthApp, lastCode, loginRequest, registered, signedIn, verifiedAccount, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
let jwks: ReturnType<typeof Bun.serve>;
let idpKey: CryptoKey;
const ISSUER = "https://idp.example.test";
const AUDIENCE = "parley-test-client";

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  idpKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  jwks = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ keys: [jwk] }) });
  t = await createAuthApp({ config: { oidcIssuer: ISSUER, oidcAudience: AUDIENCE, oidcJwksUrl: `http://127.0.0.1:${jwks.port}/jwks` } });
});
afterAll(async () => {
  await t.close();
  jwks.stop(true);
});

const idToken = (claims: Record<string, unknown>, opts: { issuer?: string; audience?: string; key?: CryptoKey } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(opts.issuer ?? ISSUER)
    .setAudience(opts.audience ?? AUDIENCE)
    .setSubject("idp-user-1")
    .setIssuedAt(Math.floor(t.clock.now().getTime() / 1000))
    .setExpirationTime(Math.floor(t.clock.now().getTime() / 1000) + 300)
    .sign(opts.key ?? idpKey);

describe("password login", () => {
  test("200 with accessToken, refreshToken, expiresIn 15m and the user", async () => {
    const a = await verifiedAccount(t);
    const r = await loginRequest(t, a.email.toUpperCase(), a.password);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      accessToken: expect.stringMatching(/^ey[\w-]+\.[\w-]+\.[\w-]+$/),
      refreshToken: expect.stringMatching(/^[\w-]{43}$/),
      expiresIn: "15m",
      user: { id: expect.any(String), email: a.email, role: "owner" },
    });
    const profile = await t.request("GET", "/api/auth/profile", { token: r.body.data.accessToken });
    expect(profile.status).toBe(200);
  });

  test("wrong password and unknown email answer the same 401, and both verify a password hash", async () => {
    const a = await verifiedAccount(t);
    const before = t.deps.hasher.stats().verifications;
    const wrong = await loginRequest(t, a.email, "Not-the-password-1");
    const unknown = await loginRequest(t, "nobody-" + a.email, "Not-the-password-1");
    const after = t.deps.hasher.stats().verifications;
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const strip = (b: any) => ({ ...b, requestId: undefined });
    expect(strip(unknown.body)).toEqual(strip(wrong.body));
    expect(wrong.body).toMatchObject({ success: false, code: "UNAUTHORIZED", message: "Invalid email or password" });
    // the unknown email did the same argon2id work (against a dummy hash) as the wrong password
    expect(after - before).toBe(2);
  });

  test("an unverified account: 403 FORBIDDEN with resume data (only with the right password)", async () => {
    const a = await registered(t);
    const r = await loginRequest(t, a.email, a.password);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("FORBIDDEN");
    expect(r.body.data).toEqual({ requiresVerification: true, registrationToken: expect.any(String), nextStep: "mobile", phoneMasked: expect.any(String), emailMasked: expect.any(String) });
    expect(r.body.data.accessToken).toBeUndefined();
    // the resume token works on the verification routes
    expect((await t.request("POST", "/api/auth/mobile/send-otp", { token: r.body.data.registrationToken })).status).toBe(200);
    await t.request("POST", "/api/auth/mobile/verify-otp", { token: r.body.data.registrationToken, body: { otpCode: await lastCode(t, a.mobile) } });
    const again = await loginRequest(t, a.email, a.password);
    expect(again.body.data.nextStep).toBe("email");
    const wrong = await loginRequest(t, a.email, "Wrong-password-1");
    expect(wrong.status).toBe(401);
    expect(wrong.body.data).toBeUndefined();
  });

  test("5 failures per account and IP in 15 minutes, then 429 with Retry-After (even with the right password)", async () => {
    const a = await verifiedAccount(t);
    for (let i = 0; i < 5; i++) expect((await loginRequest(t, a.email, "Wrong-password-1")).status).toBe(401);
    const blocked = await loginRequest(t, a.email, a.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe("RATE_LIMITED");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(800);
    t.clock.advance(15 * 60_000);
    expect((await loginRequest(t, a.email, a.password)).status).toBe(200);
  });
});

describe("second factor", () => {
  async function withTwoFactor() {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const on = await t.request("PUT", "/api/auth/2fa", { token: s.accessToken, body: { enabled: true, password: a.password } });
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({ twoFactorEnabled: true });
    t.clock.advance(61_000); // past the send gap of the verification code
    return a;
  }

  test("PUT /api/auth/2fa needs the password (400 errors.password)", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const r = await t.request("PUT", "/api/auth/2fa", { token: s.accessToken, body: { enabled: true, password: "Wrong-password-1" } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors)).toEqual(["password"]);
    expect((await t.request("PUT", "/api/auth/2fa", { body: { enabled: true, password: a.password } })).status).toBe(401);
  });

  test("PUT /api/auth/2fa refuses 409 without a verified mobile (no identity provider): nobody locks themselves out", async () => {
    const plain = await createAuthApp(); // no OIDC issuer configured here
    try {
      const invitedLike = await createWorkspace(plain);
      await plain.deps.db.prepare("UPDATE users SET mobile_verified_at = NULL WHERE id = ?").run(invitedLike.owner.userId);
      const r = await plain.request("PUT", "/api/auth/2fa", { token: invitedLike.owner.token, body: { enabled: true, password: "correct horse battery" } });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("CONFLICT");
      expect(((await plain.deps.db.prepare("SELECT two_factor_enabled AS on2 FROM users WHERE id = ?").get(invitedLike.owner.userId)) as { on2: number }).on2).toBe(0);
    } finally {
      await plain.close();
    }
  });

  test("login answers a challenge without tokens; verify-otp issues the tokens once", async () => {
    const a = await withTwoFactor();
    const r = await loginRequest(t, a.email, a.password);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ requiresOtp: true, loginChallengeToken: expect.any(String), phoneMasked: expect.any(String), expiresIn: 600 });
    const challenge = r.body.data.loginChallengeToken;
    // the challenge token is no access token
    expect((await t.request("GET", "/api/auth/profile", { token: challenge })).status).toBe(401);
    const code = await lastCode(t, a.mobile);
    const done = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, otpCode: code } });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: "15m" });
    const reuse = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, otpCode: code } });
    expect(reuse.status).toBe(401);
  });

  test("login/send-otp resends (after the gap), the old code stops working", async () => {
    const a = await withTwoFactor();
    const challenge = (await loginRequest(t, a.email, a.password)).body.data.loginChallengeToken;
    const first = await lastCode(t, a.mobile);
    const early = await t.request("POST", "/api/auth/login/send-otp", { body: { loginChallengeToken: challenge } });
    expect(early.status).toBe(429);
    t.clock.advance(60_000);
    const resent = await t.request("POST", "/api/auth/login/send-otp", { body: { loginChallengeToken: challenge } });
    expect(resent.status).toBe(200);
    expect(resent.body.data).toEqual({ phoneMasked: expect.any(String), expiresIn: 600 });
    const second = await lastCode(t, a.mobile);
    if (first !== second) {
      const old = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, otpCode: first } });
      expect(old.status).toBe(400);
    }
    const ok = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, otpCode: second } });
    expect(ok.status).toBe(200);
  });

  test("a second login within the send gap: 200 with the challenge, codeSent false and retryAfter; send-otp later", async () => {
    const a = await withTwoFactor();
    const first = await loginRequest(t, a.email, a.password);
    expect(first.status).toBe(200);
    expect(first.body.data.codeSent).toBeUndefined();
    const sends = async () => ((await t.deps.db.prepare("SELECT count(*) AS n FROM otp_codes WHERE destination = ?").get(a.mobile)) as { n: number }).n;
    const before = await sends();
    t.clock.advance(20_000);
    const second = await loginRequest(t, a.email, a.password);
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({
      requiresOtp: true,
      loginChallengeToken: expect.any(String),
      phoneMasked: expect.any(String),
      expiresIn: 600,
      codeSent: false,
      retryAfter: 40,
    });
    expect(await sends()).toBe(before); // nothing was sent
    const challenge = second.body.data.loginChallengeToken;
    // send-otp keeps the code send cooldown: 429 with Retry-After until the gap is over
    const early = await t.request("POST", "/api/auth/login/send-otp", { body: { loginChallengeToken: challenge } });
    expect(early.status).toBe(429);
    expect(early.headers.get("retry-after")).toBe("40");
    t.clock.advance(40_000);
    expect((await t.request("POST", "/api/auth/login/send-otp", { body: { loginChallengeToken: challenge } })).status).toBe(200);
    const done = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, otpCode: await lastCode(t, a.mobile) } });
    expect(done.status).toBe(200);
    expect(done.body.data.accessToken).toBeString();
  });

  test("the hourly cap also answers the challenge with codeSent false (retryAfter up to the hour)", async () => {
    const a = await withTwoFactor();
    for (let i = 0; i < 5; i++) {
      t.clock.advance(61_000);
      expect((await loginRequest(t, a.email, a.password)).status).toBe(200);
    }
    t.clock.advance(61_000);
    const capped = await loginRequest(t, a.email, a.password);
    expect(capped.status).toBe(200);
    expect(capped.body.data).toMatchObject({ requiresOtp: true, codeSent: false });
    expect(capped.body.data.retryAfter).toBeGreaterThan(60);
    expect(capped.body.data.retryAfter).toBeLessThanOrEqual(3600);
  });

  test("a wrong code is 400 errors.otpCode; an expired challenge is 401", async () => {
    const a = await withTwoFactor();
    const challenge = (await loginRequest(t, a.email, a.password)).body.data.loginChallengeToken;
    const code = await lastCode(t, a.mobile);
    const wrong = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, otpCode: code === "123456" ? "654321" : "123456" } });
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.body.errors)).toEqual(["otpCode"]);
    t.clock.advance(10 * 60_000 + 10_000);
    const late = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, otpCode: code } });
    expect(late.status).toBe(401);
  });

  test("a workspace that requires 2FA challenges every member", async () => {
    const a = await verifiedAccount(t);
    await t.deps.db.prepare("UPDATE workspaces SET require_2fa = 1 WHERE id = (SELECT workspace_id FROM users WHERE email = ?)").run(a.email);
    t.clock.advance(61_000);
    const r = await loginRequest(t, a.email, a.password);
    expect(r.body.data.requiresOtp).toBe(true);
  });

  test("an OpenID Connect ID token with the user's verified email completes the challenge", async () => {
    const a = await withTwoFactor();
    const challenge = (await loginRequest(t, a.email, a.password)).body.data.loginChallengeToken;
    const r = await t.request("POST", "/api/auth/login/verify-otp", {
      body: { loginChallengeToken: challenge, idToken: await idToken({ email: a.email.toUpperCase(), email_verified: true }) },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.accessToken).toBeString();
  });

  test("ID tokens refused: other email, unverified email, wrong issuer or audience, foreign key, HS256", async () => {
    const a = await withTwoFactor();
    const challenge = (await loginRequest(t, a.email, a.password)).body.data.loginChallengeToken;
    const other = await generateKeyPair("RS256");
    const bad = [
      await idToken({ email: "someone-else@example.com", email_verified: true }),
      await idToken({ email: a.email, email_verified: false }),
      await idToken({ email: a.email, email_verified: true }, { issuer: "https://evil.example" }),
      await idToken({ email: a.email, email_verified: true }, { audience: "another-client" }),
      await idToken({ email: a.email, email_verified: true }, { key: other.privateKey }),
      await new SignJWT({ email: a.email, email_verified: true })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(new TextEncoder().encode("k".repeat(32))),
    ];
    for (const tok of bad) {
      const r = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, idToken: tok } });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.errors)).toEqual(["idToken"]);
    }
    // the challenge is still open
    const ok = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, otpCode: await lastCode(t, a.mobile) } });
    expect(ok.status).toBe(200);
  });

  test("without a configured identity provider, idToken is refused by name", async () => {
    const plain = await createAuthApp();
    try {
      const a = await verifiedAccount(plain);
      const s = await signedIn(plain, a.email, a.password);
      await plain.request("PUT", "/api/auth/2fa", { token: s.accessToken, body: { enabled: true, password: a.password } });
      plain.clock.advance(61_000);
      const challenge = (await loginRequest(plain, a.email, a.password)).body.data.loginChallengeToken;
      const r = await plain.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: challenge, idToken: "x.y.z" } });
      expect(r.status).toBe(400);
      expect(r.body.errors.idToken).toContain("no identity provider");
    } finally {
      await plain.close();
    }
  });
});
