import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";

// A new user's first curl: the media type's case does not matter (RFC 9110), and JSON sent
// with curl's default form type is named as such instead of "email is required".

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const json = JSON.stringify({ email: "nobody@example.com", password: "not-the-password" });

test("Application/JSON is JSON: the body reaches the route (401 for a wrong login, not a 400)", async () => {
  for (const type of ["Application/JSON", "APPLICATION/JSON; charset=UTF-8"]) {
    const r = await t.request("POST", "/api/auth/login", { body: json, headers: { "content-type": type } });
    expect({ type, status: r.status, code: r.body.code }).toEqual({ type, status: 401, code: "UNAUTHORIZED" });
  }
});

test("the depth limit holds whatever the case of the media type", async () => {
  const r = await t.request("POST", "/api/auth/login", { body: "[".repeat(10_000) + "]".repeat(10_000), headers: { "content-type": "Application/Json" } });
  expect(r.status).toBe(400);
  expect(r.body.errors.body).toContain("deeper");
});

test("JSON sent as a form (curl -d without -H) is 400 naming the content type", async () => {
  const r = await t.request("POST", "/api/auth/login", { body: json, headers: { "content-type": "application/x-www-form-urlencoded" } });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ code: "VALIDATION_ERROR", errors: { body: expect.stringContaining("Content-Type: application/json") } });
  // a real form still parses into fields
  const form = await t.request("POST", "/api/auth/login", { body: "email=nobody%40example.com&password=not-the-password", headers: { "content-type": "application/x-www-form-urlencoded" } });
  expect(form.status).toBe(401);
});
