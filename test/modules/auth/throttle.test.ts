import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/clock.ts";
import { clientIp } from "../../../src/modules/auth/throttle.ts";
import { RateLimiter } from "../../../src/rate-limiter.ts";
import { throttlePath } from "../../../src/modules/auth/throttle-plugin.ts";
import { createAuthApp, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp({ config: { authRateLimitPerMinute: 10, trustProxy: true } });
});
afterAll(() => t.close());

const forgot = (ip: string, body: unknown = { email: "someone@example.com" }) =>
  t.request("POST", "/api/auth/forgot-password", { body, headers: { "x-forwarded-for": `10.9.9.9, ${ip}` } });

describe("auth route throttle (docs/authentication.md)", () => {
  test("10 a minute per IP and route, then 429 RATE_LIMITED with Retry-After", async () => {
    for (let i = 0; i < 10; i++) expect((await forgot("203.0.113.5")).status).toBe(200);
    const r = await forgot("203.0.113.5");
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ success: false, code: "RATE_LIMITED" });
    const retry = Number(r.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // another IP and another route of the same IP are counted apart
    expect((await forgot("203.0.113.6")).status).toBe(200);
    expect((await t.request("POST", "/api/auth/logout", { body: { refreshToken: "x" }, headers: { "x-forwarded-for": "203.0.113.5" } })).status).toBe(200);
    t.clock.advance(60_000);
    expect((await forgot("203.0.113.5")).status).toBe(200);
  });

  test("malformed requests count too (the throttle runs before validation)", async () => {
    for (let i = 0; i < 10; i++) expect((await forgot("198.51.100.7", {})).status).toBe(400);
    expect((await forgot("198.51.100.7")).status).toBe(429);
  });

  test("rotating the client-written (leftmost) X-Forwarded-For entries does not escape the per-IP throttle", async () => {
    const spoofed = (i: number) =>
      t.request("POST", "/api/auth/forgot-password", {
        body: { email: "someone@example.com" },
        headers: { "x-forwarded-for": `198.18.0.${i}, 192.0.2.77` },
      });
    for (let i = 0; i < 10; i++) expect((await spoofed(i)).status).toBe(200);
    const r = await spoofed(200);
    expect(r.status).toBe(429);
    expect(r.body.code).toBe("RATE_LIMITED");
  });

  test("a trailing slash does not open a second budget for the same route", async () => {
    const at = (path: string) =>
      t.request("POST", path, { body: { email: "someone@example.com" }, headers: { "x-forwarded-for": "192.0.2.91" } });
    for (let i = 0; i < 5; i++) expect((await at("/api/auth/forgot-password")).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await at("/api/auth/forgot-password/")).status).toBe(200);
    const r = await at("/api/auth/forgot-password/");
    expect(r.status).toBe(429);
    expect((await at("/api/auth/forgot-password")).status).toBe(429);
  });

  test("the profile routes are not throttled per IP", async () => {
    const { createWorkspace } = await import("../../helpers/fixtures.ts");
    const ws = await createWorkspace(t);
    for (let i = 0; i < 15; i++) expect((await t.request("GET", "/api/auth/profile", { token: ws.owner.token })).status).toBe(200);
  });
});

describe("RateLimiter for the auth throttles, and clientIp", () => {
  test("windows reset; check does not count; clear forgets", () => {
    const clock = new ManualClock(0);
    const c = new RateLimiter(clock, 2, 1000);
    c.add("k");
    c.check("k");
    c.add("k");
    expect(() => c.check("k")).toThrow();
    c.clear("k");
    c.check("k");
    c.take("h");
    c.take("h");
    expect(() => c.take("h")).toThrow();
    clock.advance(1000);
    c.take("h");
  });

  test("X-Forwarded-For is used only when the proxy is trusted", () => {
    const req = new Request("http://localhost/", { headers: { "x-forwarded-for": "1.2.3.4, 5.6.7.8" } });
    const server = { requestIP: () => ({ address: "127.0.0.1" }) };
    expect(clientIp(req, server, true)).toBe("5.6.7.8"); // the hop the trusted proxy saw
    expect(clientIp(req, server, false)).toBe("127.0.0.1");
    expect(clientIp(req, null, false)).toBe("local");
  });

  test("throttle keys strip trailing slashes", () => {
    expect(throttlePath("/api/auth/login/")).toBe("/api/auth/login");
    expect(throttlePath("/api/auth/login//")).toBe("/api/auth/login");
    expect(throttlePath("/api/auth/login")).toBe("/api/auth/login");
    expect(throttlePath("/")).toBe("/");
  });
});
