import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAuthApp, lastCode, registered, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp();
});
afterAll(() => t.close());

const send = (token: string) => t.request("POST", "/api/auth/mobile/send-otp", { token });
const verify = (token: string, otpCode: string) => t.request("POST", "/api/auth/mobile/verify-otp", { token, body: { otpCode } });
const other = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("OTP codes", () => {
  test("stored hashed, never in clear text outside the log outbox", async () => {
    const a = await registered(t);
    await send(a.registrationToken);
    const code = await lastCode(t, a.mobile);
    const row = (await t.deps.db.prepare("SELECT * FROM otp_codes WHERE destination = ?").get(a.mobile)) as any;
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);
  });

  test("expire after 10 minutes", async () => {
    const a = await registered(t);
    await send(a.registrationToken);
    const code = await lastCode(t, a.mobile);
    t.clock.advance(10 * 60_000 + 1);
    const r = await verify(a.registrationToken, code);
    expect(r.status).toBe(400);
    expect(r.body.errors.otpCode).toContain("expired");
  });

  test("dead after 5 wrong tries: the right code then fails too", async () => {
    const a = await registered(t);
    await send(a.registrationToken);
    const code = await lastCode(t, a.mobile);
    for (let i = 0; i < 4; i++) expect((await verify(a.registrationToken, other(code))).body.errors.otpCode).toBe("is incorrect");
    const fifth = await verify(a.registrationToken, other(code));
    expect(fifth.body.errors.otpCode).toContain("too many");
    const right = await verify(a.registrationToken, code);
    expect(right.status).toBe(400);
    expect(right.body.code).toBe("VALIDATION_ERROR");
    const user = (await t.deps.db.prepare("SELECT mobile_verified_at AS m FROM users WHERE email = ?").get(a.email)) as any;
    expect(user.m).toBeNull();
  });

  test("parallel wrong tries never exceed 5 attempts", async () => {
    const a = await registered(t);
    await send(a.registrationToken);
    const code = await lastCode(t, a.mobile);
    await Promise.all(Array.from({ length: 12 }, () => verify(a.registrationToken, other(code))));
    const row = (await t.deps.db.prepare("SELECT attempts, status FROM otp_codes WHERE destination = ?").get(a.mobile)) as any;
    expect(row).toEqual({ attempts: 5, status: "dead" });
  });

  test("a new code replaces the previous one", async () => {
    const a = await registered(t);
    await send(a.registrationToken);
    const first = await lastCode(t, a.mobile);
    t.clock.advance(61_000);
    await send(a.registrationToken);
    const second = await lastCode(t, a.mobile);
    if (first !== second) expect((await verify(a.registrationToken, first)).status).toBe(400);
    expect((await verify(a.registrationToken, second)).status).toBe(200);
  });

  test("send cooldown: 60 seconds per destination, 429 RATE_LIMITED with Retry-After", async () => {
    const a = await registered(t);
    expect((await send(a.registrationToken)).status).toBe(200);
    t.clock.advance(20_000);
    const r = await send(a.registrationToken);
    expect(r.status).toBe(429);
    expect(r.body.code).toBe("RATE_LIMITED");
    expect(r.headers.get("retry-after")).toBe("40");
    t.clock.advance(40_000);
    expect((await send(a.registrationToken)).status).toBe(200);
  });

  test("the cooldown counts per destination, across accounts", async () => {
    const a = await registered(t);
    const b = await registered(t, { mobile: a.mobile });
    expect((await send(a.registrationToken)).status).toBe(200);
    expect((await send(b.registrationToken)).status).toBe(429);
  });

  test("hourly cap: at most 5 sends an hour per destination", async () => {
    const a = await registered(t);
    for (let i = 0; i < 5; i++) {
      expect((await send(a.registrationToken)).status).toBe(200);
      t.clock.advance(61_000);
    }
    const sixth = await send(a.registrationToken);
    expect(sixth.status).toBe(429);
    // the first send was 5 x 61 s ago: it leaves the window 3600 - 305 s from now
    expect(sixth.headers.get("retry-after")).toBe(String(3600 - 305));
    t.clock.advance((3600 - 305) * 1000);
    // the registration token expired meanwhile: login hands out a fresh one to resume with
    const resume = await t.request("POST", "/api/auth/login", { body: { email: a.email, password: a.password } });
    expect(resume.status).toBe(403);
    expect((await send(resume.body.data.registrationToken)).status).toBe(200);
  });

  test("single use: a code that verified cannot verify again", async () => {
    const a = await registered(t);
    await send(a.registrationToken);
    const code = await lastCode(t, a.mobile);
    // two parallel uses of one code: one wins
    const results = await Promise.all([verify(a.registrationToken, code), verify(a.registrationToken, code)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const row = (await t.deps.db.prepare("SELECT status, used_at FROM otp_codes WHERE destination = ?").get(a.mobile)) as any;
    expect(row.status).toBe("used");
  });

  test("a code is bound to its user and purpose", async () => {
    const a = await registered(t);
    const b = await registered(t);
    await send(a.registrationToken);
    const r = await verify(b.registrationToken, await lastCode(t, a.mobile));
    expect(r.status).toBe(400);
    expect(r.body.errors.otpCode).toBeDefined();
  });
});

describe("delivery failures", () => {
  test("the session channel without a connected session: 502 CHATAPP_UNAVAILABLE, and no code is kept", async () => {
    const sender = Bun.randomUUIDv7();
    const s = await createAuthApp({ config: { mobileChannel: "session", mobileSession: sender } });
    try {
      const a = await registered(s);
      const r = await s.request("POST", "/api/auth/mobile/send-otp", { token: a.registrationToken });
      expect(r.status).toBe(502);
      expect(r.body.code).toBe("CHATAPP_UNAVAILABLE");
      expect((await s.deps.db.prepare("SELECT count(*) AS n FROM otp_codes").get())).toEqual({ n: 0 });
      expect((await s.deps.db.prepare("SELECT channel, status, error FROM notifications").all())).toEqual([
        { channel: "session", status: "failed", error: `no session with id "${sender}"` },
      ]);
    } finally {
      await s.close();
    }
  });
});
