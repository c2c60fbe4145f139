import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test("GET /health answers ok with the version", async () => {
  const r = await t.request("GET", "/health");
  expect(r.status).toBe(200);
  expect(r.body.success).toBe(true);
  expect(r.body.data.status).toBe("ok");
  expect(r.body.data.version).toMatch(/^\d+\.\d+\.\d+/);
});

test("GET /ready checks the database and its migrations", async () => {
  const r = await t.request("GET", "/ready");
  expect(r.status).toBe(200);
  expect(r.body.data).toMatchObject({ status: "ready", database: "ok" });
  expect(r.body.data.migrations).toBeGreaterThan(0);
});

test("GET /ready answers 503 in the envelope when the database is gone", async () => {
  const broken = await createTestApp();
  broken.deps.sqlite.close();
  const r = await broken.request("GET", "/ready");
  expect(r.status).toBe(503);
  expect(r.body).toMatchObject({ success: false, code: "INTERNAL_ERROR" });
});
