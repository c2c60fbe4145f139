import { expect, test } from "bun:test";
import { isPossiblePhone, phoneField } from "../../src/http/phone.ts";

test("phone numbers: digits with a country code (D1), and possible for that country", () => {
  for (const ok of ["919800000000", "4915112345678", "14155550123", "447911123456"]) expect(`${ok}: ${isPossiblePhone(ok)}`).toBe(`${ok}: true`);
  for (const bad of ["12345678", "0000000000", "99912345678", "+919800000000", "91 98000 00000", "9198000000001234567", ""]) {
    expect(`${bad}: ${isPossiblePhone(bad)}`).toBe(`${bad}: false`);
  }
});

test("the shared field explains what is wrong", () => {
  const plus = phoneField.safeParse("+919800000000");
  expect(plus.success).toBe(false);
  expect(plus.error!.issues[0]!.message).toContain("no plus");
  const impossible = phoneField.safeParse("12345678");
  expect(impossible.error!.issues[0]!.message).toContain("not a possible phone number");
});

test("every route that takes a phone number refuses an impossible one", async () => {
  const { createTestApp } = await import("../helpers/app.ts");
  const { createWorkspace } = await import("../helpers/fixtures.ts");
  const t = await createTestApp();
  const ws = await createWorkspace(t);
  const session = (await t.request("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name: "p" } })).body.data.id;
  const cases: [string, string, Record<string, unknown>, string][] = [
    ["POST", "/api/v1/messages/send", { session_id: session, to: "12345678", type: "text", body: "x" }, "to"],
    ["POST", `/api/v1/chatapp/${session}/pairing-code`, { phoneNumber: "12345678" }, "phoneNumber"],
    ["POST", "/api/auth/register", { name: "Asha", email: "a@example.com", password: "Sturdy-pass-123", confirmPassword: "Sturdy-pass-123", tenantName: "Acme", mobile: "12345678" }, "mobile"],
  ];
  for (const [method, path, body, field] of cases) {
    const r = await t.request(method, path, { token: ws.owner.token, body });
    expect({ path, status: r.status, field: Object.keys(r.body.errors ?? {}) }).toEqual({ path, status: 400, field: [field] });
  }
  await t.close();
});
