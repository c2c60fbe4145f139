// A child server for the browser tests, and API shortcuts for what a test does not click through.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { spawnServer, type ChildServer } from "../helpers/process.ts";
import { outboxCode } from "./browser.ts";

/** Polls `fn` every 50 ms until it gives a truthy value; throws naming `what` after 10 s. */
export async function until<T>(fn: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v) return v;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const PASSWORD = "Correct-horse-battery-9";

/** A real server on the sim network, captcha off, throttles and send gaps small enough for a test. */
export async function startServer(): Promise<{ server: ChildServer; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-web-"));
  const server = await spawnServer({
    dataDir,
    env: {
      PARLEY_CAPTCHA: "off",
      PARLEY_LOG_LEVEL: "warn",
      PARLEY_AUTH_RATE_LIMIT_PER_MINUTE: "1000",
      PARLEY_WEBHOOK_ALLOW_HTTP: "true",
      PARLEY_WEBHOOK_ALLOW_PRIVATE: "true",
      PARLEY_SIM_QR_ROTATE_MS: "1500",
      PARLEY_SIM_QR_MAX_ROTATIONS: "100",
      PARLEY_SEND_MIN_GAP_MS: "150",
      PARLEY_SEND_JITTER_MS: "0",
    },
  });
  return { server, dataDir };
}

/** JSON call to the server's public API. */
export async function call(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Registers and verifies an owner through the API (codes from the outbox); returns its access token. */
export async function ownerByApi(base: string, dataDir: string, email: string, mobile: string): Promise<string> {
  const reg = await call(base, "POST", "/api/auth/register", { name: "Api Owner", email, password: PASSWORD, confirmPassword: PASSWORD, tenantName: "Api Co", mobile });
  if (reg.status !== 201) throw new Error(JSON.stringify(reg.body));
  const t = reg.body.data.registrationToken as string;
  await call(base, "POST", "/api/auth/mobile/send-otp", {}, t);
  await call(base, "POST", "/api/auth/mobile/verify-otp", { otpCode: outboxCode(dataDir, mobile) }, t);
  await call(base, "POST", "/api/auth/email/send-verification-code", {}, t);
  await call(base, "POST", "/api/auth/email/verify", { code: outboxCode(dataDir, email) }, t);
  return login(base, email);
}

/** An access token for the test's own API calls (the page keeps its own in memory). */
export async function login(base: string, email: string, password = PASSWORD): Promise<string> {
  const r = await call(base, "POST", "/api/auth/login", { email, password });
  if (r.status !== 200 || !r.body.data.accessToken) throw new Error(`login failed: ${JSON.stringify(r.body)}`);
  return r.body.data.accessToken as string;
}

/** Signs in through the log-in screen and waits for the inbox. */
export async function uiLogin(page: Page, base: string, email: string, password = PASSWORD) {
  await page.goto(`${base}/app/login`);
  await page.getByLabel("Email").waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Inbox" }).waitFor();
}

/** A connected sim session created through the API. */
export async function connectedSession(base: string, token: string, name: string, phone: string): Promise<string> {
  const s = await call(base, "POST", "/api/v1/chatapp", { name }, token);
  const id = s.body.data.id as string;
  await call(base, "POST", `/api/v1/chatapp/${id}/connect`, {}, token);
  await call(base, "POST", `/api/sim/sessions/${id}/scan`, { phoneNumber: phone }, token);
  for (let i = 0; i < 100; i++) {
    const r = await call(base, "GET", `/api/v1/chatapp/${id}`, undefined, token);
    if (r.body.data.status === "connected") return id;
    await Bun.sleep(50);
  }
  throw new Error("the session did not connect");
}
