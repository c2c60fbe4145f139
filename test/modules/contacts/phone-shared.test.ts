import { afterAll, beforeAll, expect, test } from "bun:test";
import { readHeader, readRow } from "../../../src/modules/contacts/import-row.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";

// Contacts take phone numbers as every other route does (src/http/phone.ts): a number written
// with a trunk prefix is the same contact as the one sends and inbound messages use.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test("POST /api/v1/contacts stores +44 (0)20 7946 0958 as 442079460958, the form sends use", async () => {
  const ws = await createWorkspace(t);
  const r = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "+44 (0)20 7946 0958" } });
  expect(r.status).toBe(201);
  expect(r.body.data.phone).toBe("442079460958");
  const dup = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "0044 20 7946 0958" } });
  expect(dup.status).toBe(409);
  const bad = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "020 7946 0958" } });
  expect(bad.status).toBe(400);
  expect(bad.body.errors.phone).toContain("country code");
});

test("a CSV row's phone is normalised the same way", () => {
  const h = readHeader(["phone", "name"]);
  const row = readRow(h, ["+44 (0)20 7946 0958", "Ann"]);
  expect(typeof row === "string" ? row : row.phone).toBe("442079460958");
});
