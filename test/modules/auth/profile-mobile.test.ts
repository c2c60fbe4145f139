import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWorkspace, type TestMember, type TestWorkspace } from "../../helpers/fixtures.ts";
import { createAuthApp, lastCode, loginRequest, registered, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp();
});
afterAll(() => t.close());

const PASSWORD = "correct horse battery"; // the fixture's password
let seq = 0;
/** A number no other test of this file uses (the send limits count per number). */
const freshNumber = () => `9197${String(10_000_000 + ++seq * 7919).slice(-8)}`;
const masked = (n: string) => n.slice(0, 2) + "*".repeat(n.length - 6) + n.slice(-4);
const other = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

const send = (token: string, mobile: string, password?: string) =>
  t.request("POST", "/api/auth/profile/mobile/send-otp", { token, body: password === undefined ? { mobile } : { mobile, password } });
const verify = (token: string, mobile: string, otpCode: string) => t.request("POST", "/api/auth/profile/mobile/verify", { token, body: { mobile, otpCode } });
const userRow = async (id: string) => (await t.deps.db.prepare("SELECT mobile, mobile_verified_at AS \"verifiedAt\" FROM users WHERE id = ?").get(id)) as { mobile: string | null; verifiedAt: number | null };

/** A member as an invitation leaves it: the email verified, no mobile at all. */
async function invitedMember(ws?: TestWorkspace): Promise<TestMember & { ws: TestWorkspace }> {
  const w = ws ?? (await createWorkspace(t));
  const m = await w.member("agent");
  await t.deps.db.prepare("UPDATE users SET mobile = NULL, mobile_verified_at = NULL WHERE id = ?").run(m.userId);
  return { ...m, ws: w };
}

describe("adding a mobile number to a signed-in account", () => {
  test("an invited member adds and verifies a number; then 2FA and a workspace requiring it are possible", async () => {
    const m = await invitedMember();
    const twoFa = () => t.request("PUT", "/api/auth/2fa", { token: m.token, body: { enabled: true, password: PASSWORD } });
    expect((await twoFa()).status).toBe(409);
    expect((await t.request("PATCH", "/api/workspace", { token: m.ws.owner.token, body: { require2fa: true } })).status).toBe(409);
    const before = await t.request("GET", "/api/auth/profile", { token: m.token });
    expect(before.body.data).toMatchObject({ id: m.userId, mobileMasked: null, mobileVerified: false, twoFactorEnabled: false });

    const number = freshNumber();
    const sent = await send(m.token, number);
    expect(sent.status).toBe(200);
    expect(sent.body.data).toEqual({ phoneMasked: masked(number), expiresIn: 600 });
    // nothing on the account until the code comes back
    expect(await userRow(m.userId)).toEqual({ mobile: null, verifiedAt: null });
    const row = (await t.deps.db.prepare("SELECT purpose, destination, code_hash FROM otp_codes WHERE user_id = ?").get(m.userId)) as any;
    const code = await lastCode(t, number);
    expect(row).toMatchObject({ purpose: "change_mobile", destination: number });
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);

    const done = await verify(m.token, number, code);
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ phoneMasked: masked(number), mobileVerified: true });
    expect(await userRow(m.userId)).toEqual({ mobile: number, verifiedAt: t.clock.now().getTime() });
    const after = await t.request("GET", "/api/auth/profile", { token: m.token });
    expect(after.body.data).toMatchObject({ mobileMasked: masked(number), mobileVerified: true });

    expect((await twoFa()).status).toBe(200);
    expect((await t.request("PATCH", "/api/workspace", { token: m.ws.owner.token, body: { require2fa: true } })).status).toBe(200);
    // the next login's code goes to the new number
    t.clock.advance(61_000);
    const login = await loginRequest(t, m.email, PASSWORD);
    expect(login.body.data).toMatchObject({ requiresOtp: true, phoneMasked: masked(number) });
    const tokens = await t.request("POST", "/api/auth/login/verify-otp", { body: { loginChallengeToken: login.body.data.loginChallengeToken, otpCode: await lastCode(t, number) } });
    expect(tokens.status).toBe(200);
  });

  test("with 2FA on, the old number stays in force until the new one is verified", async () => {
    const ws = await createWorkspace(t);
    const m = await ws.member("viewer");
    const oldNumber = freshNumber();
    const newNumber = freshNumber();
    await t.deps.db.prepare("UPDATE users SET mobile = ?, two_factor_enabled = 1 WHERE id = ?").run(oldNumber, m.userId);
    // replacing a verified number (the second factor) needs the password, not just a token
    const bare = await send(m.token, newNumber);
    expect(bare.status).toBe(400);
    expect(Object.keys(bare.body.errors)).toEqual(["password"]);
    expect((await send(m.token, newNumber, "not the password")).status).toBe(400);
    expect((await send(m.token, newNumber, PASSWORD)).status).toBe(200);
    expect((await verify(m.token, newNumber, other(await lastCode(t, newNumber)))).status).toBe(400);
    expect((await t.request("GET", "/api/auth/profile", { token: m.token })).body.data).toMatchObject({ mobileMasked: masked(oldNumber), mobileVerified: true });
    const login = await loginRequest(t, m.email, PASSWORD);
    expect(login.body.data).toMatchObject({ requiresOtp: true, phoneMasked: masked(oldNumber) });
    expect(await lastCode(t, oldNumber)).toMatch(/^\d{6}$/);
    expect((await verify(m.token, newNumber, await lastCode(t, newNumber))).status).toBe(200);
    expect((await userRow(m.userId)).mobile).toBe(newNumber);
  });

  test("a code sent for number A cannot verify number B", async () => {
    const m = await invitedMember();
    const a = freshNumber();
    const b = freshNumber();
    await send(m.token, a);
    const codeA = await lastCode(t, a);
    const r = await verify(m.token, b, codeA);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(r.body.errors)).toEqual(["otpCode"]);
    expect(await userRow(m.userId)).toEqual({ mobile: null, verifiedAt: null });
    // a code for B replaces A's: A's code neither verifies B nor, any longer, A
    t.clock.advance(61_000);
    await send(m.token, b);
    const codeB = await lastCode(t, b);
    if (codeA !== codeB) expect((await verify(m.token, b, codeA)).body.errors.otpCode).toBe("is incorrect");
    expect((await verify(m.token, a, codeA)).status).toBe(400);
    expect((await verify(m.token, b, codeB)).status).toBe(200);
    expect((await userRow(m.userId)).mobile).toBe(b);
  });

  test("codes expire after 10 minutes", async () => {
    const m = await invitedMember();
    const n = freshNumber();
    await send(m.token, n);
    t.clock.advance(10 * 60_000 + 1);
    const r = await verify(m.token, n, await lastCode(t, n));
    expect(r.status).toBe(400);
    expect(r.body.errors.otpCode).toContain("expired");
    expect((await userRow(m.userId)).mobile).toBeNull();
  });

  test("5 wrong tries kill the code; single use", async () => {
    const m = await invitedMember();
    const n = freshNumber();
    await send(m.token, n);
    const code = await lastCode(t, n);
    for (let i = 0; i < 4; i++) expect((await verify(m.token, n, other(code))).body.errors.otpCode).toBe("is incorrect");
    expect((await verify(m.token, n, other(code))).body.errors.otpCode).toContain("too many");
    expect((await verify(m.token, n, code)).status).toBe(400);
    expect((await userRow(m.userId)).mobile).toBeNull();
    // a new code works once
    t.clock.advance(61_000);
    await send(m.token, n);
    const fresh = await lastCode(t, n);
    expect((await verify(m.token, n, fresh)).status).toBe(200);
    expect((await verify(m.token, n, fresh)).status).toBe(400);
  });

  test("send limits: 60 s per number (429 with Retry-After), 5 an hour per number and per member", async () => {
    const m = await invitedMember();
    const n = freshNumber();
    expect((await send(m.token, n)).status).toBe(200);
    t.clock.advance(20_000);
    const early = await send(m.token, n);
    expect(early.status).toBe(429);
    expect(early.body.code).toBe("RATE_LIMITED");
    expect(early.headers.get("retry-after")).toBe("40");
    // one member cannot spray codes at many numbers either
    for (let i = 0; i < 4; i++) expect((await send(m.token, freshNumber())).status).toBe(200);
    const sixth = await send(m.token, freshNumber());
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("retry-after")).toBe(String(3600 - 20));
    // the number's budget is shared with other accounts (docs/authentication.md: per destination)
    const someoneElse = await invitedMember();
    expect((await send(someoneElse.token, n)).status).toBe(429);
  });

  test("the number already verified on the account: 409; one verified by another user: allowed", async () => {
    const ws = await createWorkspace(t);
    const mine = freshNumber();
    await t.deps.db.prepare("UPDATE users SET mobile = ? WHERE id = ?").run(mine, ws.owner.userId);
    const same = await send(ws.owner.token, mine);
    expect(same.status).toBe(409);
    expect(same.body.code).toBe("CONFLICT");
    const m = await invitedMember(ws);
    expect((await send(m.token, mine)).status).toBe(200);
    expect((await verify(m.token, mine, await lastCode(t, mine))).status).toBe(200);
    expect(await userRow(m.userId)).toMatchObject({ mobile: mine });
    expect(await userRow(ws.owner.userId)).toMatchObject({ mobile: mine });
  });

  test("another workspace's member is unaffected: its own code, its own row", async () => {
    const x = await invitedMember();
    const y = await invitedMember();
    const n = freshNumber();
    await send(x.token, n);
    const code = await lastCode(t, n);
    const r = await verify(y.token, n, code);
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors)).toEqual(["otpCode"]);
    expect(await userRow(y.userId)).toEqual({ mobile: null, verifiedAt: null });
    expect((await verify(x.token, n, code)).status).toBe(200);
    expect(await userRow(y.userId)).toEqual({ mobile: null, verifiedAt: null });
    const py = (await t.request("GET", "/api/auth/profile", { token: y.token })).body.data;
    expect(py).toMatchObject({ id: y.userId, tenantId: y.ws.id, mobileMasked: null, mobileVerified: false });
    expect((await t.request("GET", "/api/auth/profile", { token: y.ws.owner.token })).body.data).toMatchObject({ mobileMasked: masked("919800000000"), mobileVerified: true });
  });

  test("without an access token: 401 (a registration token is no access token), nothing sent", async () => {
    const n = freshNumber();
    const a = await registered(t);
    for (const token of [undefined, a.registrationToken]) {
      const opts = { token, body: { mobile: n } };
      expect((await t.request("POST", "/api/auth/profile/mobile/send-otp", opts)).status).toBe(401);
      expect((await t.request("POST", "/api/auth/profile/mobile/verify", { token, body: { mobile: n, otpCode: "123456" } })).status).toBe(401);
    }
    expect((await t.deps.db.prepare("SELECT count(*) AS n FROM otp_codes WHERE destination = ?").get(n))).toEqual({ n: 0 });
  });
});
