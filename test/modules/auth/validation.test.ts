import { afterAll, beforeAll, expect, test } from "bun:test";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { createAuthApp, newAccount, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
let token: string;
beforeAll(async () => {
  t = await createAuthApp({ config: { captcha: "image" } });
  token = (await createWorkspace(t)).owner.token;
});
afterAll(() => t.close());

const captcha = { captchaId: "0197a0c0-0000-7000-8000-000000000000", captchaAnswer: "ABCDE" };
const valid = () => ({ ...newAccount(), ...captcha });
const withBody = (over: Record<string, unknown>) => ({ ...valid(), ...over });

type Case = [method: string, path: string, body: unknown, fields: string[], auth?: boolean];

const cases: Case[] = [
  ["POST", "/api/auth/register", {}, ["name", "email", "password", "confirmPassword", "tenantName", "mobile", "captchaId", "captchaAnswer"]],
  ["POST", "/api/auth/register", withBody({ name: "A" }), ["name"]],
  ["POST", "/api/auth/register", withBody({ name: "x".repeat(81) }), ["name"]],
  ["POST", "/api/auth/register", withBody({ name: 42 }), ["name"]],
  ["POST", "/api/auth/register", withBody({ email: "not-an-email" }), ["email"]],
  ["POST", "/api/auth/register", withBody({ password: "short1", confirmPassword: "short1" }), ["password"]],
  ["POST", "/api/auth/register", withBody({ password: "x".repeat(129), confirmPassword: "x".repeat(129) }), ["password"]],
  ["POST", "/api/auth/register", withBody({ password: "password123", confirmPassword: "password123" }), ["password"]],
  ["POST", "/api/auth/register", withBody({ confirmPassword: "Different-pass-1" }), ["confirmPassword"]],
  ["POST", "/api/auth/register", withBody({ tenantName: "" }), ["tenantName"]],
  ["POST", "/api/auth/register", withBody({ tenantName: "y".repeat(81) }), ["tenantName"]],
  ["POST", "/api/auth/register", withBody({ mobile: "+91 98765 4321x" }), ["mobile"]],
  ["POST", "/api/auth/register", withBody({ mobile: "1234567" }), ["mobile"]],
  ["POST", "/api/auth/register", withBody({ mobile: "1234567890123456" }), ["mobile"]],
  ["POST", "/api/auth/register", withBody({ mobile: 919876543210 }), ["mobile"]],
  ["POST", "/api/auth/register", withBody({ captchaId: "abc" }), ["captchaId"]],
  ["POST", "/api/auth/register", withBody({ captchaAnswer: "" }), ["captchaAnswer"]],
  ["POST", "/api/auth/register", "{not json", ["body"]],
  ["POST", "/api/auth/login", {}, ["email", "password", "captchaId", "captchaAnswer"]],
  ["POST", "/api/auth/login", { email: "nope", password: "x", ...captcha }, ["email"]],
  ["POST", "/api/auth/login", { email: "a@example.com", password: "x".repeat(129), ...captcha }, ["password"]],
  ["POST", "/api/auth/mobile/send-otp", { registrationToken: 5 }, ["registrationToken"]],
  ["POST", "/api/auth/mobile/verify-otp", {}, ["otpCode"]],
  ["POST", "/api/auth/mobile/verify-otp", { otpCode: "12345" }, ["otpCode"]],
  ["POST", "/api/auth/mobile/verify-otp", { otpCode: "abcdef" }, ["otpCode"]],
  ["POST", "/api/auth/mobile/verify-otp", { otpCode: 123456 }, ["otpCode"]],
  ["POST", "/api/auth/email/send-verification-code", { registrationToken: "" }, ["registrationToken"]],
  ["POST", "/api/auth/email/verify", {}, ["code"]],
  ["POST", "/api/auth/email/verify", { code: "12" }, ["code"]],
  ["POST", "/api/auth/email/verify", { otpCode: "1234567" }, ["otpCode"]],
  ["POST", "/api/auth/login/send-otp", {}, ["loginChallengeToken"]],
  ["POST", "/api/auth/login/verify-otp", {}, ["loginChallengeToken"]],
  ["POST", "/api/auth/login/verify-otp", { loginChallengeToken: "x" }, ["otpCode"]],
  ["POST", "/api/auth/login/verify-otp", { loginChallengeToken: "x", otpCode: "1" }, ["otpCode"]],
  ["POST", "/api/auth/login/verify-otp", { loginChallengeToken: "x", idToken: 7 }, ["idToken"]],
  ["POST", "/api/auth/refresh", {}, ["refreshToken"]],
  ["POST", "/api/auth/refresh", { refreshToken: 5 }, ["refreshToken"]],
  ["POST", "/api/auth/refresh", { refreshToken: "" }, ["refreshToken"]],
  ["POST", "/api/auth/logout", {}, ["refreshToken"]],
  ["POST", "/api/auth/forgot-password", {}, ["email"]],
  ["POST", "/api/auth/forgot-password", { email: "x@" }, ["email"]],
  ["POST", "/api/auth/reset-password", {}, ["token", "password"]],
  ["POST", "/api/auth/reset-password", { token: "abc", password: "short" }, ["password"]],
  ["POST", "/api/auth/change-password", {}, ["currentPassword", "newPassword"], true],
  ["POST", "/api/auth/change-password", { currentPassword: "Old-password-1", newPassword: "short" }, ["newPassword"], true],
  ["POST", "/api/auth/change-password", { currentPassword: "Same-password-1", newPassword: "Same-password-1" }, ["newPassword"], true],
  ["PUT", "/api/auth/2fa", {}, ["enabled", "password"], true],
  ["PUT", "/api/auth/2fa", { enabled: "yes", password: "x" }, ["enabled"], true],
  ["PUT", "/api/auth/profile", {}, ["name"], true],
  ["PUT", "/api/auth/profile", { name: "x" }, ["name"], true],
  ["PUT", "/api/auth/profile", { name: "z".repeat(81) }, ["name"], true],
  ["POST", "/api/auth/profile/mobile/send-otp", {}, ["mobile"], true],
  ["POST", "/api/auth/profile/mobile/send-otp", { mobile: "+91 98765 4321x" }, ["mobile"], true],
  ["POST", "/api/auth/profile/mobile/send-otp", { mobile: 919876543210 }, ["mobile"], true],
  ["POST", "/api/auth/profile/mobile/send-otp", { mobile: "1234567" }, ["mobile"], true],
  ["POST", "/api/auth/profile/mobile/send-otp", "{not json", ["body"], true],
  ["POST", "/api/auth/profile/mobile/verify", {}, ["mobile", "otpCode"], true],
  ["POST", "/api/auth/profile/mobile/verify", { mobile: "919876543210" }, ["otpCode"], true],
  ["POST", "/api/auth/profile/mobile/verify", { mobile: "919876543210", otpCode: "12345" }, ["otpCode"], true],
  ["POST", "/api/auth/profile/mobile/verify", { mobile: "12", otpCode: "123456" }, ["mobile"], true],
];

test("every validation failure of every auth route is 400 VALIDATION_ERROR naming exactly the failing fields, and changes nothing", async () => {
  const count = async () => (await t.deps.db.prepare("SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM otp_codes) + (SELECT count(*) FROM refresh_tokens) AS n").get());
  const before = await count();
  const failures: string[] = [];
  for (const [method, path, body, fields, auth] of cases) {
    const r = await t.request(method, path, { body, token: auth ? token : undefined });
    const got = r.body?.errors ? Object.keys(r.body.errors).sort() : [];
    if (r.status !== 400 || r.body.code !== "VALIDATION_ERROR" || JSON.stringify(got) !== JSON.stringify([...fields].sort())) {
      failures.push(`${method} ${path} ${JSON.stringify(body).slice(0, 60)}: ${r.status} ${JSON.stringify(r.body?.errors)}`);
    }
  }
  expect(failures).toEqual([]);
  expect(await count()).toEqual(before);
});

test("every auth route appears in the cases above", () => {
  const covered = new Set(cases.map(([m, p]) => `${m} ${p}`));
  const bodyRoutes = t.app.routes.filter((r) => r.path.startsWith("/api/auth") && r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  expect(bodyRoutes.filter((r) => !covered.has(r))).toEqual([]);
  expect(bodyRoutes.length).toBe(17);
});
