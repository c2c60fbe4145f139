import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, recordEvents, waitFor } from "../messages/helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const events = recordEvents(t);
  t.sim.inbound(s.id, { from: "919844400001", pushName: "Ravi", type: "text", text: "a" });
  t.sim.inbound(s.id, { from: "919844400002", pushName: "Meena", type: "text", text: "b" });
  await waitFor(() => events.filter((e) => e.event === "message_received").length === 2, "two messages");
});
afterAll(() => t.close());

test("inbound senders become contacts; list, search and get", async () => {
  const all = await t.request("GET", "/api/v1/contacts", { token: ws.owner.token });
  expect(all.status).toBe(200);
  expect(all.body.pagination.total).toBe(2);
  expect(all.body.data.map((c: { phone: string }) => c.phone).sort()).toEqual(["919844400001", "919844400002"]);
  const found = await t.request("GET", "/api/v1/contacts?search=meen", { token: ws.owner.token });
  expect(found.body.data.map((c: { pushName: string }) => c.pushName)).toEqual(["Meena"]);
  const byDigits = await t.request("GET", "/api/v1/contacts?search=400001", { token: ws.owner.token });
  expect(byDigits.body.data.length).toBe(1);
  const one = await t.request("GET", `/api/v1/contacts/${byDigits.body.data[0].id}`, { token: ws.owner.token });
  expect(one.body.data).toMatchObject({ phone: "919844400001", pushName: "Ravi", name: null, tags: [], optedOut: false });
});

test("a search with LIKE wildcards matches them literally", async () => {
  const r = await t.request("GET", "/api/v1/contacts?search=%25", { token: ws.owner.token });
  expect(r.body.data).toEqual([]);
});

test("another workspace sees no contacts and gets 404 by id", async () => {
  const mine = (await t.request("GET", "/api/v1/contacts", { token: ws.owner.token })).body.data[0];
  expect((await t.request("GET", "/api/v1/contacts", { token: other.owner.token })).body.data).toEqual([]);
  const r = await t.request("GET", `/api/v1/contacts/${mine.id}`, { token: other.owner.token });
  expect(r.status).toBe(404);
  expect((await t.request("GET", "/api/v1/contacts/not-a-uuid", { token: ws.owner.token })).body.errors.id).toBeDefined();
});
