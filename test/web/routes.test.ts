// Serving the dashboard through the app (no browser): redirects, fallback, CSP, nothing shadowed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { dashboardCsp } from "../../src/modules/web/csp.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) => t.app.handle(new Request(`http://localhost:3000${path}`, { headers: { host: "localhost:3000", ...headers } }));

test("GET / leads to /app/; every path under /app answers the single page with a strict CSP", async () => {
  const root = await get("/");
  expect(root.status).toBe(302);
  expect(root.headers.get("location")).toBe("/app/");
  for (const path of ["/app", "/app/", "/app/inbox", "/app/campaigns/0199/recipients"]) {
    const r = await get(path);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toBe(dashboardCsp("localhost:3000"));
    expect(csp).toContain("connect-src 'self' ws://localhost:3000 wss://localhost:3000");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).not.toContain("unsafe");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    const html = await r.text();
    expect(html).not.toMatch(/<script>|<style|style=|(src|href)="https?:/);
  }
}, 30_000);

test("the assets are served with their types; an unknown asset is 404 in the envelope", async () => {
  const js = await get("/app/assets/app.js");
  expect(js.headers.get("content-type")).toContain("text/javascript");
  expect((await js.text()).length).toBeGreaterThan(10_000);
  expect((await get("/app/assets/app.css")).headers.get("content-type")).toContain("text/css");
  const missing = await get("/app/assets/other.js");
  expect(missing.status).toBe(404);
  expect((await missing.json()).code).toBe("NOT_FOUND");
}, 30_000);

test("a Host header that is not a plain host is not echoed into the policy", () => {
  expect(dashboardCsp("evil.example; script-src *")).toContain("connect-src 'self';");
  expect(dashboardCsp("[::1]:3000")).toContain("ws://[::1]:3000");
});

test("API routes, docs, health and the mail pages are not shadowed", async () => {
  const api = await get("/api/nowhere");
  expect(api.status).toBe(404);
  expect(api.headers.get("content-type")).toContain("json");
  expect((await get("/health")).headers.get("content-type")).toContain("json");
  expect((await get("/openapi.json")).headers.get("content-type")).toContain("json");
  expect(await (await get("/docs")).text()).toContain("swagger-ui");
  const reset = await get("/reset-password?token=x");
  const csp = reset.headers.get("content-security-policy")!;
  expect(csp).toContain("style-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  const html = await reset.text();
  expect(html).toContain('<link rel="stylesheet" href="/pages/forms.css">');
  expect(html).not.toContain("<style");
  const css = await get("/pages/forms.css");
  expect(css.headers.get("content-type")).toContain("text/css");
});
