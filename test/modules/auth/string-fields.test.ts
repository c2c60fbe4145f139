import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";

// From a terminal people type `"otpCode":123456` or `"password":12345678`: the answer says the
// value must be a string, not that the field is missing.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test("a number where a string is expected is named as such; a missing field is still 'is required'", async () => {
  const r = await t.request("POST", "/api/auth/login", { body: { email: "a@example.com", password: 12345678 } });
  expect(r.status).toBe(400);
  expect(r.body.errors.password).toBe("must be a string (in quotes), not number");
  const missing = await t.request("POST", "/api/auth/login", { body: { email: "a@example.com" } });
  expect(missing.body.errors.password).toBe("is required");
  const reg = await t.request("POST", "/api/auth/register", { body: { name: null, email: ["a"], password: true, confirmPassword: 1, tenantName: {}, mobile: 919800000001 } });
  expect(reg.body.errors).toMatchObject({
    name: "must be a string (in quotes), not null",
    email: "must be a string (in quotes), not object",
    password: "must be a string (in quotes), not boolean",
    tenantName: "must be a string (in quotes), not object",
    mobile: expect.stringContaining("must be a string"),
  });
});
