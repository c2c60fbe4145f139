// Segments API (docs/contacts-and-campaigns.md): saved filters with a live count, preview, validation, roles, tenancy.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const contact = (body: unknown, w = ws) => t.request("POST", "/api/v1/contacts", { token: w.owner.token, body });
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  await contact({ phone: "919811100001", name: "A", tags: ["vip"], attributes: { city: "Pune" } });
  await contact({ phone: "919811100002", name: "B", tags: ["vip", "lead"] });
  await contact({ phone: "919811100003", name: "C", tags: ["lead"], attributes: { city: "Pune" } });
  await contact({ phone: "919811100004", name: "D", tags: ["vip"] }, other);
});
afterAll(() => t.close());

const segDigest = async () => JSON.stringify(await t.deps.db.prepare("SELECT * FROM segments ORDER BY id").all());

test("create, get, list with live counts; the count follows contacts and opt-outs", async () => {
  const r = await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body: { name: "VIPs", filter: { tagsAny: ["VIP"] } } });
  expect(r.status).toBe(201);
  expect(r.body.data).toMatchObject({ name: "VIPs", filter: { tagsAny: ["vip"] }, count: 2 });
  const id = r.body.data.id;
  await contact({ phone: "919811100005", tags: ["vip"] });
  expect((await t.request("GET", `/api/v1/segments/${id}`, { token: ws.owner.token })).body.data.count).toBe(3);
  const a = (await t.request("GET", "/api/v1/contacts?search=919811100001", { token: ws.owner.token })).body.data[0];
  await t.request("PATCH", `/api/v1/contacts/${a.id}`, { token: ws.owner.token, body: { optedOut: true } });
  const list = await t.request("GET", "/api/v1/segments", { token: ws.owner.token });
  expect(list.body.data.map((s: { name: string; count: number }) => [s.name, s.count])).toEqual([["VIPs", 2]]);
  expect(list.body.pagination.total).toBe(1);
  await t.request("PATCH", `/api/v1/contacts/${a.id}`, { token: ws.owner.token, body: { optedOut: false } });
});

test("patch renames or replaces the filter; duplicate names are 409; delete", async () => {
  const s = (await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body: { name: "Leads", filter: { tagsAny: ["lead"] } } })).body.data;
  const p = await t.request("PATCH", `/api/v1/segments/${s.id}`, { token: ws.owner.token, body: { filter: { tagsAny: ["lead"], attributes: { city: "Pune" } } } });
  expect(p.body.data).toMatchObject({ name: "Leads", count: 1 });
  expect((await t.request("PATCH", `/api/v1/segments/${s.id}`, { token: ws.owner.token, body: { name: "VIPs" } })).status).toBe(409);
  expect((await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body: { name: "Leads", filter: {} } })).status).toBe(409);
  expect((await t.request("PATCH", `/api/v1/segments/${s.id}`, { token: ws.owner.token, body: { name: "Pune leads" } })).body.data.name).toBe("Pune leads");
  expect((await t.request("DELETE", `/api/v1/segments/${s.id}`, { token: ws.owner.token })).status).toBe(200);
  expect((await t.request("GET", `/api/v1/segments/${s.id}`, { token: ws.owner.token })).status).toBe(404);
});

test("preview: count and a sample of at most 10, opted-in only", async () => {
  const w = await createWorkspace(t);
  for (let i = 0; i < 12; i++) await contact({ phone: `9198222000${String(i).padStart(2, "0")}`, tags: ["bulk"] }, w);
  const r = await t.request("POST", "/api/v1/segments/preview", { token: w.owner.token, body: { filter: { tagsAll: ["bulk"] } } });
  expect(r.status).toBe(200);
  expect(r.body.data.count).toBe(12);
  expect(r.body.data.sample.length).toBe(10);
  expect(r.body.data.sample[0]).toMatchObject({ tags: ["bulk"], attributes: {} });
  const none = await t.request("POST", "/api/v1/segments/preview", { token: w.owner.token, body: { filter: { tagsNone: ["bulk"] } } });
  expect(none.body.data).toEqual({ count: 0, sample: [] });
});

test("validation: 400 with dotted errors, nothing stored", async () => {
  const before = await segDigest();
  const cases: [unknown, string][] = [
    [{ filter: {} }, "name"],
    [{ name: "", filter: {} }, "name"],
    [{ name: "x" }, "filter"],
    [{ name: "x", filter: { tagsAny: [] } }, "filter.tagsAny"],
    [{ name: "x", filter: { tagsAll: ["x".repeat(41)] } }, "filter.tagsAll.0"],
    [{ name: "x", filter: { attributes: { "bad key": "v" } } }, "filter.attributes.bad key"],
    [{ name: "x", filter: { lastInboundWithinDays: 0 } }, "filter.lastInboundWithinDays"],
    [{ name: "x", filter: { createdWithinDays: "7" } }, "filter.createdWithinDays"],
    [{ name: "x", filter: { tags: ["vip"] } }, "filter"],
  ];
  for (const [body, field] of cases) {
    const r = await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(r.body.errors)).toContain(field);
  }
  const p = await t.request("POST", "/api/v1/segments/preview", { token: ws.owner.token, body: { filter: { tagsNone: "vip" } } });
  expect(p.body.errors).toHaveProperty(["filter.tagsNone"]);
  expect(await segDigest()).toBe(before);
});

test("roles: agents write segments like contacts; viewers read and preview only", async () => {
  const agent = await ws.member("agent");
  const made = await t.request("POST", "/api/v1/segments", { token: agent.token, body: { name: "agent's", filter: {} } });
  expect(made.status).toBe(201);
  const viewer = await ws.member("viewer");
  expect((await t.request("GET", `/api/v1/segments/${made.body.data.id}`, { token: viewer.token })).status).toBe(200);
  expect((await t.request("POST", "/api/v1/segments/preview", { token: viewer.token, body: { filter: {} } })).status).toBe(200);
  const before = await segDigest();
  expect((await t.request("POST", "/api/v1/segments", { token: viewer.token, body: { name: "v", filter: {} } })).status).toBe(403);
  expect((await t.request("PATCH", `/api/v1/segments/${made.body.data.id}`, { token: viewer.token, body: { name: "v" } })).status).toBe(403);
  expect((await t.request("DELETE", `/api/v1/segments/${made.body.data.id}`, { token: viewer.token })).status).toBe(403);
  expect(await segDigest()).toBe(before);
});

test("another workspace: 404 on every route by id, counts never include its contacts", async () => {
  const s = (await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body: { name: "mine", filter: { tagsAny: ["vip"] } } })).body.data;
  const before = await segDigest();
  const tok = other.owner.token;
  expect((await t.request("GET", `/api/v1/segments/${s.id}`, { token: tok })).status).toBe(404);
  expect((await t.request("PATCH", `/api/v1/segments/${s.id}`, { token: tok, body: { name: "x" } })).status).toBe(404);
  expect((await t.request("DELETE", `/api/v1/segments/${s.id}`, { token: tok })).status).toBe(404);
  expect((await t.request("GET", "/api/v1/segments", { token: tok })).body.data).toEqual([]);
  expect((await t.request("POST", "/api/v1/segments/preview", { token: tok, body: { filter: { tagsAny: ["vip"] } } })).body.data.count).toBe(1);
  expect(await segDigest()).toBe(before);
  expect((await t.request("GET", "/api/v1/segments/not-a-uuid", { token: tok })).body.errors).toHaveProperty(["id"]);
});
