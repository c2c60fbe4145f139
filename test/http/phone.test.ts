import { expect, test } from "bun:test";
import { isPossiblePhone, phoneField } from "../../src/http/phone.ts";

test("phone numbers: digits with a country code (docs/api.md), and possible for that country", () => {
  for (const ok of ["919800000000", "4915112345678", "14155550123", "447911123456"]) expect(`${ok}: ${isPossiblePhone(ok)}`).toBe(`${ok}: true`);
  for (const bad of ["12345678", "0000000000", "99912345678", "+919800000000", "91 98000 00000", "9198000000001234567", ""]) {
    expect(`${bad}: ${isPossiblePhone(bad)}`).toBe(`${bad}: false`);
  }
});

test("the shared field drops a leading +, spaces, dashes, dots and parentheses", () => {
  for (const [raw, want] of [
    ["+91 98000 00000", "919800000000"],
    ["+1 (415) 555-0123", "14155550123"],
    ["  44-7911-123456 ", "447911123456"],
    ["49.151.12345678", "4915112345678"],
    ["919800000000", "919800000000"],
  ]) expect({ raw, out: phoneField.safeParse(raw).data }).toEqual({ raw, out: want });
  for (const bad of ["91+9800000000", "+91 98000 0000a", "++919800000000", "12345678"]) expect({ bad, ok: phoneField.safeParse(bad).success }).toEqual({ bad, ok: false });
});

test("the shared field explains what is wrong", () => {
  const letters = phoneField.safeParse("+91 98000 ABCDE");
  expect(letters.success).toBe(false);
  expect(letters.error!.issues[0]!.message).toContain("8 to 15 digits");
  const impossible = phoneField.safeParse("12345678");
  expect(impossible.error!.issues[0]!.message).toContain("not a possible phone number");
});

test("every route that takes a phone number accepts it as people write it, and stores digits", async () => {
  const { createTestApp } = await import("../helpers/app.ts");
  const { createWorkspace } = await import("../helpers/fixtures.ts");
  const t = await createTestApp();
  const ws = await createWorkspace(t);
  const session = (await t.request("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name: "p" } })).body.data.id;
  const reg = await t.request("POST", "/api/auth/register", {
    body: { name: "Asha", email: "asha@example.com", password: "Sturdy-pass-123", confirmPassword: "Sturdy-pass-123", tenantName: "Acme", mobile: "+91 98000-11111" },
  });
  expect(reg.status).toBe(201);
  expect((await t.deps.db.prepare("SELECT mobile FROM users WHERE email = 'asha@example.com'").get())).toEqual({ mobile: "919800011111" });
  await t.request("POST", `/api/v1/chatapp/${session}/connect`, { token: ws.owner.token });
  const code = await t.request("POST", `/api/v1/chatapp/${session}/pairing-code`, { token: ws.owner.token, body: { phoneNumber: "+91 (98000) 22222" } });
  expect(code.status).toBe(200);
  const scan = await t.request("POST", `/api/sim/sessions/${session}/scan`, { token: ws.owner.token, body: { phoneNumber: "+91 98000-22222" } });
  expect(scan.body.data?.phoneNumber ?? scan.body).toBe("919800022222");
  for (let i = 0; i < 100 && ((await t.deps.db.prepare("SELECT status FROM chat_sessions WHERE id = ?").get(session)) as { status: string } | null)?.status !== "connected"; i++) await Bun.sleep(5);
  const sent = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session, to: "+44 7911-123456", type: "text", body: "hi" } });
  expect({ status: sent.status, to: sent.body.data?.to }).toEqual({ status: 202, to: "447911123456" });
  const inbound = await t.request("POST", `/api/sim/sessions/${session}/inbound`, { token: ws.owner.token, body: { from: "+1 (415) 555-0123", text: "yo" } });
  expect(inbound.status).toBeLessThan(300);
  await t.close();
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
