import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Elysia path `/a/:id` -> OpenAPI `/a/{id}`. */
const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, "{$1}");
// not API operations: the docs, and the pages behind the links in mail
const HIDDEN = new Set(["/openapi.json", "/docs", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/docs/assets/init.js", "/reset-password", "/accept-invitation", "/pages/forms.js", "/pages/forms.css",
  // the dashboard (src/modules/web): the single page and its two assets
  "/", "/app", "/app/", "/app/*", "/app/assets/:file"]);

test("GET /openapi.json is OpenAPI 3.0.x", async () => {
  const r = await t.request("GET", "/openapi.json");
  expect(r.status).toBe(200);
  expect(r.body.openapi).toMatch(/^3\.0\.\d+$/);
  expect(r.body.info.title).toBe("Parley API");
});

test("every route of the app is in the document", async () => {
  const doc = (await t.request("GET", "/openapi.json")).body;
  const missing: string[] = [];
  for (const route of t.app.routes) {
    if (HIDDEN.has(route.path) || route.path.startsWith("/api/ws") || route.method === "WS") continue;
    const path = toOpenApiPath(route.path);
    if (!doc.paths[path]?.[route.method.toLowerCase()]) missing.push(`${route.method} ${path}`);
  }
  expect(missing).toEqual([]);
  expect(t.app.routes.length).toBeGreaterThan(2);
});

test("/docs renders from embedded assets only (no CDN)", async () => {
  const r = await t.app.handle(new Request("http://localhost/docs"));
  const html = await r.text();
  expect(r.status).toBe(200);
  expect(html).toContain("/docs/assets/swagger-ui-bundle.js");
  expect(html).not.toMatch(/(src|href)="https?:\/\//);
  const js = await t.app.handle(new Request("http://localhost/docs/assets/swagger-ui-bundle.js"));
  expect(js.status).toBe(200);
  expect((await js.text()).length).toBeGreaterThan(100_000);
});

test("/docs has a CSP with no inline script: its start-up call is a file of its own", async () => {
  const r = await t.app.handle(new Request("http://localhost/docs"));
  const csp = r.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("default-src 'self'");
  expect(csp).toMatch(/script-src 'self'(;|$)/);
  const html = await r.text();
  expect(html).not.toMatch(/<script>/);
  const init = await t.app.handle(new Request("http://localhost/docs/assets/init.js"));
  expect(init.status).toBe(200);
  expect(await init.text()).toContain("SwaggerUIBundle");
});

test("request bodies carry their JSON schema (the global body parser must not hide them)", async () => {
  const doc = (await t.request("GET", "/openapi.json")).body;
  const empty: string[] = [];
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths))
    for (const [method, op] of Object.entries<any>(ops))
      if (op.requestBody && !Object.keys(op.requestBody.content ?? {}).length) empty.push(`${method} ${path}`);
  expect(empty).toEqual([]);
  const register = doc.paths["/api/auth/register"].post.requestBody.content["application/json"].schema;
  expect(register.required).toContain("email");
});
