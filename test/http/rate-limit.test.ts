import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { RateLimiter } from "../../src/rate-limiter.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";
import { guardApp } from "../modules/apikeys/guard-app.ts";

const LIMIT = 5;
let t: TestApp;
let ws: TestWorkspace;
let call: ReturnType<typeof guardApp>;

beforeAll(async () => {
  t = await createTestApp({ config: { rateLimitPerMinute: LIMIT } });
  ws = await createWorkspace(t);
  call = guardApp(t);
});
afterAll(() => t.close());

describe("rate limit per user and per API key", () => {
  test("a user gets RateLimit-* headers, then 429 RATE_LIMITED with Retry-After; the window resets", async () => {
    const user = await ws.member("agent");
    for (let i = 1; i <= LIMIT; i++) {
      const r = await t.request("GET", "/api/team/members", { token: user.token });
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-limit")).toBe(String(LIMIT));
      expect(r.headers.get("ratelimit-remaining")).toBe(String(LIMIT - i));
      expect(Number(r.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
    }
    t.clock.advance(20_000);
    const refused = await t.request("GET", "/api/team/members", { token: user.token });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, code: "RATE_LIMITED" });
    expect(refused.headers.get("retry-after")).toBe("40");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-reset")).toBe("40");
    t.clock.advance(40_000);
    expect((await t.request("GET", "/api/team/members", { token: user.token })).status).toBe(200);
  });

  test("users are limited separately", async () => {
    const one = await ws.member("viewer");
    const two = await ws.member("viewer");
    for (let i = 0; i < LIMIT; i++) await t.request("GET", "/api/workspace", { token: one.token });
    expect((await t.request("GET", "/api/workspace", { token: one.token })).status).toBe(429);
    expect((await t.request("GET", "/api/workspace", { token: two.token })).status).toBe(200);
  });

  test("refused requests change nothing", async () => {
    const admin = await ws.member("admin");
    for (let i = 0; i < LIMIT; i++) await t.request("GET", "/api/workspace", { token: admin.token });
    const before = ((await t.deps.db.prepare("SELECT count(*) AS n FROM api_keys").get()) as any).n;
    const r = await t.request("POST", "/api/api-keys", { token: admin.token, body: { name: "k" } });
    expect(r.status).toBe(429);
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM api_keys").get()) as any).n).toBe(before);
  });

  test("each API key has its own limit", async () => {
    const k1 = (await t.request("POST", "/api/api-keys", { token: ws.owner.token, body: { name: "k1" } })).body.data.key;
    const k2 = (await t.request("POST", "/api/api-keys", { token: ws.owner.token, body: { name: "k2" } })).body.data.key;
    for (let i = 0; i < LIMIT; i++) expect((await call("GET", "/api/external/probe", { apiKey: k1 })).status).toBe(200);
    const r = await call("GET", "/api/external/probe", { apiKey: k1 });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await call("GET", "/api/external/probe", { apiKey: k2 })).status).toBe(200);
  });

  test("unauthenticated requests are refused before they count", async () => {
    const r = await t.request("GET", "/api/workspace");
    expect(r.status).toBe(401);
    expect(r.headers.get("ratelimit-limit")).toBeNull();
  });
});

describe("RateLimiter", () => {
  test("fixed windows per key on the injected clock", () => {
    const clock = new ManualClock(0);
    const l = new RateLimiter(clock, 2);
    expect(l.hit("a")).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
    clock.advance(59_001);
    expect(l.hit("a").remaining).toBe(0);
    expect(l.hit("a")).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 1 });
    expect(l.hit("b").allowed).toBe(true);
    clock.advance(999);
    expect(l.hit("a")).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
  });

  test("the default is 600 a minute", async () => {
    const t2 = await createTestApp();
    const w = await createWorkspace(t2);
    const r = await t2.request("GET", "/api/workspace", { token: w.owner.token });
    expect(r.headers.get("ratelimit-limit")).toBe("600");
    await t2.close();
  });
});
