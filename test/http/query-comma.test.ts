// A comma in a query value is part of the value: a search for "Smith, John", a tag with a
// comma, a session id filter. Only a repeated name makes a list.
import { afterAll, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { createTestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";
import { createApiKey } from "../modules/messages/helpers.ts";

const t = await createTestApp();
afterAll(() => t.close());
const ws = await createWorkspace(t);
const token = ws.owner.token;
for (const [phone, name, tags] of [
  ["919845092001", "Smith, John", ["north, east"]],
  ["919845092002", "John Smith", ["north"]],
  ["919845092003", "Asha", ["east"]],
] as const) {
  expect((await t.request("POST", "/api/v1/contacts", { token, body: { phone, name, tags } })).status).toBe(201);
}
const phones = (r: { body: { data: { phone: string }[] } }) => r.body.data.map((c) => c.phone).sort();

test("?search= with a comma (encoded or not) searches for the whole text", async () => {
  for (const q of ["Smith%2C%20John", "Smith,%20John", "Smith,+John"]) {
    const r = await t.request("GET", `/api/v1/contacts?search=${q}`, { token });
    expect(`${q} ${r.status}`).toBe(`${q} 200`);
    expect(phones(r)).toEqual(["919845092001"]);
  }
});

test("?tag= with a comma is one tag; a repeated tag is any of them", async () => {
  expect(phones(await t.request("GET", "/api/v1/contacts?tag=north%2C%20east", { token }))).toEqual(["919845092001"]);
  expect(phones(await t.request("GET", "/api/v1/contacts?tag=north&tag=east", { token }))).toEqual(["919845092002", "919845092003"]);
});

test("export and the API-key contacts list take the same values", async () => {
  const res = await t.app.handle(new Request("http://localhost/api/v1/contacts/export?search=Smith%2C%20John", { headers: { authorization: `Bearer ${token}` } }));
  expect(res.status).toBe(200);
  expect((parse(await res.text()) as string[][]).slice(1).map((r) => r[0])).toEqual(["919845092001"]);
  const apiKey = await createApiKey(t, ws);
  const ext = await t.request("GET", "/api/external/contacts?search=Smith,%20John&tag=north,%20east", { apiKey });
  expect(ext.status).toBe(200);
  expect(phones(ext)).toEqual(["919845092001"]);
});

test("a comma in an id filter is a wrong id (400 naming the field), not an array", async () => {
  const r = await t.request("GET", `/api/v1/inbox/conversations?sessionId=${Bun.randomUUIDv7()},${Bun.randomUUIDv7()}`, { token });
  expect(r.status).toBe(400);
  expect(r.body.code).toBe("VALIDATION_ERROR");
  expect(r.body.errors.sessionId).not.toMatch(/array/);
  const one = await t.request("GET", `/api/v1/inbox/conversations?sessionId=${Bun.randomUUIDv7()}`, { token });
  expect(one.status).toBe(200);
});
