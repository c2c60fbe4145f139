import { afterAll, beforeAll, expect, test } from "bun:test";
import { PNG } from "pngjs";
import { BUN, ROOT } from "../../helpers/process.ts";
import { createAuthApp, newAccount, type AuthTestApp } from "./helpers.ts";
import { join } from "node:path";

// The whole journey over real HTTP on a real port; codes are read the operator's way, with `parley outbox`.
let t: AuthTestApp;
let base: string;
beforeAll(async () => {
  t = await createAuthApp({ fileDb: true, config: { captcha: "image", authRateLimitPerMinute: 10 } });
  t.app.listen({ hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${t.app.server!.port}`;
});
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
});

async function call(method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

/** `parley outbox --json --data-dir <dir> --to <recipient>`: the newest code. */
async function outboxCode(to: string): Promise<string> {
  // on PostgreSQL the operator names the database as the server does
  const env = t.deps.config.databaseUrl ? { ...process.env, PARLEY_DATABASE_URL: t.deps.config.databaseUrl } : process.env;
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "outbox", "--json", "--data-dir", t.deps.config.dataDir, "--to", to], { stdout: "pipe", stderr: "pipe", env });
  const [out, code] = [await new Response(p.stdout).text(), await p.exited];
  expect(code).toBe(0);
  const entries = JSON.parse(out) as { text: string }[];
  return entries[0]!.text.match(/\b(\d{6})\b/)![1]!;
}

async function captcha() {
  const r = await call("GET", "/api/auth/captcha");
  expect(r.status).toBe(200);
  const png = PNG.sync.read(Buffer.from(r.body.data.challenge.split(",")[1], "base64"));
  expect(png.width * png.height).toBeGreaterThan(0);
  return { captchaId: r.body.data.captchaId as string, captchaAnswer: t.captcha.last };
}

test("captcha, register, mobile OTP, email code, login, profile, refresh, logout, refresh refused", async () => {
  const account = newAccount();
  const reg = await call("POST", "/api/auth/register", { ...account, ...(await captcha()) });
  expect(reg.status).toBe(201);
  expect(reg.body.data.nextStep).toBe("mobile");
  const token = reg.body.data.registrationToken;

  expect((await call("POST", "/api/auth/mobile/send-otp", undefined, token)).status).toBe(200);
  const mobile = await call("POST", "/api/auth/mobile/verify-otp", { otpCode: await outboxCode(account.mobile) }, token);
  expect(mobile.body.data.nextStep).toBe("email");

  expect((await call("POST", "/api/auth/email/send-verification-code", {}, token)).status).toBe(200);
  const email = await call("POST", "/api/auth/email/verify", { code: await outboxCode(account.email) }, token);
  expect(email.body.data).toEqual({ nextStep: "done", verified: true });

  const login = await call("POST", "/api/auth/login", { email: account.email, password: account.password, ...(await captcha()) });
  expect(login.status).toBe(200);
  expect(login.body.data.expiresIn).toBe("15m");
  expect(login.body.data.user).toMatchObject({ email: account.email, role: "owner" });

  const profile = await call("GET", "/api/auth/profile", undefined, login.body.data.accessToken);
  expect(profile.body.data).toMatchObject({ email: account.email, name: account.name, role: "owner", tenantName: account.tenantName });

  const refreshed = await call("POST", "/api/auth/refresh", { refreshToken: login.body.data.refreshToken });
  expect(refreshed.status).toBe(200);
  expect((await call("GET", "/api/auth/profile", undefined, refreshed.body.data.accessToken)).status).toBe(200);

  const logout = await call("POST", "/api/auth/logout", { refreshToken: refreshed.body.data.refreshToken });
  expect(logout.status).toBe(200);
  const refused = await call("POST", "/api/auth/refresh", { refreshToken: refreshed.body.data.refreshToken });
  expect(refused.status).toBe(401);
  expect(refused.body.code).toBe("UNAUTHORIZED");
});

test("the per-IP throttle sees the real client address", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await call("POST", "/api/auth/forgot-password", { email: "x@example.com" })).status);
  expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
  expect(statuses[10]).toBe(429);
});
