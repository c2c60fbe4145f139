import { renderCaptcha, type CaptchaGenerator } from "../../../src/auth/captcha.ts";
import { CAPTCHA_ALPHABET } from "../../../src/auth/captcha-font.ts";
import { randomFrom } from "../../../src/crypto/random.ts";
import type { ConfigKey } from "../../../src/config.ts";
import type { Notifier } from "../../../src/notify/notifier.ts";
import { listOutbox } from "../../../src/notify/outbox.ts";
import { createTestApp, type TestApp, type TestResponse } from "../../helpers/app.ts";

/** A captcha generator whose answers the test can read (no back door in the server). */
export class KnownCaptcha implements CaptchaGenerator {
  readonly answers: string[] = [];
  generate() {
    const answer = randomFrom(CAPTCHA_ALPHABET, 5);
    this.answers.push(answer);
    return { answer, png: renderCaptcha(answer) };
  }
  get last(): string {
    return this.answers.at(-1)!;
  }
}

export interface AuthTestApp extends TestApp {
  captcha: KnownCaptcha;
}

export interface AuthAppOptions {
  config?: Partial<Record<ConfigKey, unknown>>;
  notifier?: Notifier;
  /** a file database in `dataDir` instead of memory (for the CLI and real-port tests) */
  fileDb?: boolean;
}

/**
 * Like `createTestApp`, plus the captcha generator override, and with the auth throttle raised
 * so tests that make many requests are not refused (throttle tests lower it again).
 */
export async function createAuthApp(opts: AuthAppOptions = {}): Promise<AuthTestApp> {
  const captcha = new KnownCaptcha();
  const t = await createTestApp({
    config: { authRateLimitPerMinute: 100_000, ...opts.config },
    fileDb: opts.fileDb,
    overrides: { captcha, notifier: opts.notifier },
  });
  return Object.assign(t, { captcha });
}

let seq = 0;

/** A fresh, valid registration body. */
export function newAccount(over: Record<string, unknown> = {}) {
  const n = ++seq;
  const password = `Sturdy-${n}-${crypto.randomUUID().slice(0, 8)}`;
  return {
    name: `Asha ${n}`,
    email: `asha${n}.${crypto.randomUUID().slice(0, 6)}@example.com`,
    password,
    confirmPassword: password,
    tenantName: `Shop ${n}`,
    mobile: `9198${String(10_000_000 + n * 7919).slice(-8)}`,
    ...over,
  };
}

/** A captcha and its answer (only meaningful with captcha "image"). */
export async function solveCaptcha(t: AuthTestApp): Promise<{ captchaId: string; captchaAnswer: string }> {
  const r = await t.request("GET", "/api/auth/captcha");
  if (r.status !== 200) throw new Error(`captcha: ${r.status}`);
  return { captchaId: r.body.data.captchaId, captchaAnswer: t.captcha.last };
}

/** The newest 6-digit code sent to an email or phone over the log channel. */
export async function lastCode(t: TestApp, to: string): Promise<string> {
  const entry = (await listOutbox(t.deps.db, { to, limit: 1 }))[0];
  const code = entry?.text?.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no code in the outbox for ${to}`);
  return code;
}

/** Registers over HTTP and returns the account with its registration token. */
export async function registered(t: AuthTestApp, over: Record<string, unknown> = {}) {
  const account = newAccount(over);
  const captcha = t.deps.config.captcha === "image" ? await solveCaptcha(t) : {};
  const r = await t.request("POST", "/api/auth/register", { body: { ...account, ...captcha } });
  if (r.status !== 201) throw new Error(`register: ${r.status} ${JSON.stringify(r.body)}`);
  return { ...account, registrationToken: r.body.data.registrationToken as string, response: r };
}

/** Registers and completes both verification steps; the clock moves past the send gap between codes. */
export async function verifiedAccount(t: AuthTestApp, over: Record<string, unknown> = {}) {
  const a = await registered(t, over);
  const token = a.registrationToken;
  await expectOk(t.request("POST", "/api/auth/mobile/send-otp", { token }));
  await expectOk(t.request("POST", "/api/auth/mobile/verify-otp", { token, body: { otpCode: await lastCode(t, a.mobile) } }));
  await expectOk(t.request("POST", "/api/auth/email/send-verification-code", { token }));
  await expectOk(t.request("POST", "/api/auth/email/verify", { token, body: { code: await lastCode(t, a.email) } }));
  return a;
}

/** Password login (captcha solved when on); returns the response. */
export async function loginRequest(t: AuthTestApp, email: string, password: string, headers: Record<string, string> = {}) {
  const captcha = t.deps.config.captcha === "image" ? await solveCaptcha(t) : {};
  return t.request("POST", "/api/auth/login", { body: { email, password, ...captcha }, headers });
}

/** Logs in and returns the tokens (fails the test otherwise). */
export async function signedIn(t: AuthTestApp, email: string, password: string) {
  const r = await loginRequest(t, email, password);
  if (r.status !== 200 || !r.body.data.accessToken) throw new Error(`login: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { accessToken: string; refreshToken: string; expiresIn: string; user: { id: string; email: string; role: string } };
}

async function expectOk(p: Promise<TestResponse>): Promise<TestResponse> {
  const r = await p;
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}
