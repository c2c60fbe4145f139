// Contacts API (docs/contacts-and-campaigns.md): create, read, update, delete, validation, roles, tenancy and the quota.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const create = (body: unknown, token = ws.owner.token) => t.request("POST", "/api/v1/contacts", { token, body });
const digest = async (wsId: string) => JSON.stringify(await t.deps.db.prepare("SELECT * FROM contacts WHERE workspace_id = ? ORDER BY id").all(wsId)) + JSON.stringify(await t.deps.db.prepare("SELECT * FROM contact_tags WHERE workspace_id = ? ORDER BY contact_id, tag").all(wsId));

test("create normalises the phone, tags and answers the contact view; duplicate is 409", async () => {
  const r = await create({ phone: "+91 98450-11111", name: "  Asha ", tags: ["VIP", " vip", "Lead"], attributes: { city: "Pune", tier_2: "x" } });
  expect(r.status).toBe(201);
  expect(r.body.data).toMatchObject({ phone: "919845011111", name: "Asha", pushName: null, tags: ["vip", "lead"], attributes: { city: "Pune", tier_2: "x" }, optedOut: false, optedOutAt: null, lastInboundAt: null });
  expect(await t.deps.db.prepare("SELECT tag FROM contact_tags WHERE contact_id = ? ORDER BY tag").all(r.body.data.id)).toEqual([{ tag: "lead" }, { tag: "vip" }]);
  const dup = await create({ phone: "919845011111" });
  expect(dup.status).toBe(409);
  expect(dup.body.code).toBe("CONFLICT");
  // the same number in another workspace is another contact
  expect((await create({ phone: "919845011111" }, other.owner.token)).status).toBe(201);
});

test("get, patch (tags and attributes replaced, opt-out stamps optedOutAt) and delete", async () => {
  const c = (await create({ phone: "919845022222", tags: ["a"], attributes: { city: "Delhi" } })).body.data;
  const got = await t.request("GET", `/api/v1/contacts/${c.id}`, { token: ws.owner.token });
  expect(got.body.data).toEqual(c);
  t.clock.advance(1000);
  const p = await t.request("PATCH", `/api/v1/contacts/${c.id}`, { token: ws.owner.token, body: { name: "Ravi", tags: ["B"], attributes: { plan: "gold" }, optedOut: true } });
  expect(p.status).toBe(200);
  expect(p.body.data).toMatchObject({ name: "Ravi", tags: ["b"], attributes: { plan: "gold" }, optedOut: true, optedOutAt: t.clock.now().toISOString() });
  expect(await t.deps.db.prepare("SELECT key, value FROM contact_attributes WHERE contact_id = ?").all(c.id)).toEqual([{ key: "plan", value: "gold" }]);
  const back = await t.request("PATCH", `/api/v1/contacts/${c.id}`, { token: ws.owner.token, body: { optedOut: false, name: null } });
  expect(back.body.data).toMatchObject({ name: null, optedOut: false, optedOutAt: null, tags: ["b"] });
  const del = await t.request("DELETE", `/api/v1/contacts/${c.id}`, { token: ws.owner.token });
  expect(del.status).toBe(200);
  expect((await t.request("GET", `/api/v1/contacts/${c.id}`, { token: ws.owner.token })).status).toBe(404);
  expect(await t.deps.db.prepare("SELECT count(*) AS n FROM contact_tags WHERE contact_id = ?").get(c.id)).toEqual({ n: 0 });
  expect((await t.request("DELETE", `/api/v1/contacts/${c.id}`, { token: ws.owner.token })).status).toBe(404);
});

test("list filters: tag (repeatable, any of), optedOut, search, pagination", async () => {
  const w = await createWorkspace(t);
  const tok = w.owner.token;
  await create({ phone: "919845030001", name: "One", tags: ["x"] }, tok);
  await create({ phone: "919845030002", name: "Two", tags: ["y"] }, tok);
  const three = (await create({ phone: "919845030003", name: "Three", tags: ["x", "y"] }, tok)).body.data;
  await t.request("PATCH", `/api/v1/contacts/${three.id}`, { token: tok, body: { optedOut: true } });
  const names = async (q: string) => (await t.request("GET", `/api/v1/contacts?${q}`, { token: tok })).body.data.map((c: { name: string }) => c.name).sort().join(",");
  expect(await names("tag=x")).toBe("One,Three");
  expect(await names("tag=X&tag=y")).toBe("One,Three,Two");
  expect(await names("tag=x&optedOut=false")).toBe("One");
  expect(await names("optedOut=true")).toBe("Three");
  expect(await names("search=tw")).toBe("Two");
  const page = await t.request("GET", "/api/v1/contacts?limit=2&page=2", { token: tok });
  expect(page.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
});

describe("validation: 400 with dotted errors, nothing changes", () => {
  const cases: [string, unknown, string[]][] = [
    ["missing phone", {}, ["phone"]],
    ["short phone", { phone: "+91 12" }, ["phone"]],
    ["letters in phone", { phone: "91984abc5000" }, ["phone"]],
    ["impossible number", { phone: "999999999999" }, ["phone"]],
    ["long tag", { phone: "919845040001", tags: ["x".repeat(41)] }, ["tags.0"]],
    ["empty tag", { phone: "919845040001", tags: ["ok", "  "] }, ["tags.1"]],
    ["too many tags", { phone: "919845040001", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, ["tags"]],
    ["tags not an array", { phone: "919845040001", tags: "vip" }, ["tags"]],
    ["bad attribute key", { phone: "919845040001", attributes: { "1city": "x" } }, ["attributes.1city"]],
    ["long attribute key", { phone: "919845040001", attributes: { ["k".repeat(41)]: "x" } }, [`attributes.${"k".repeat(41)}`]],
    ["attribute not a string", { phone: "919845040001", attributes: { city: 5 } }, ["attributes.city"]],
    ["long attribute value", { phone: "919845040001", attributes: { city: "x".repeat(501) } }, ["attributes.city"]],
    ["too many attributes", { phone: "919845040001", attributes: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) }, ["attributes"]],
    ["long name", { phone: "919845040001", name: "x".repeat(101) }, ["name"]],
  ];
  test.each(cases)("POST %s", async (_, body, fields) => {
    const before = await digest(ws.id);
    const r = await create(body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    for (const f of fields) expect(r.body.errors).toHaveProperty([f]);
    expect(await digest(ws.id)).toBe(before);
  });

  test("PATCH with nothing, or bad fields; list with bad query", async () => {
    const c = (await create({ phone: "919845040002" })).body.data;
    const before = await digest(ws.id);
    for (const [body, field] of [[{}, "body"], [{ optedOut: "yes" }, "optedOut"], [{ tags: [""] }, "tags.0"], [{ attributes: { a: ["x"] } }, "attributes.a"]] as const) {
      const r = await t.request("PATCH", `/api/v1/contacts/${c.id}`, { token: ws.owner.token, body });
      expect(r.status).toBe(400);
      expect(r.body.errors).toHaveProperty([field]);
    }
    expect(await digest(ws.id)).toBe(before);
    for (const [q, field] of [["optedOut=maybe", "optedOut"], ["limit=101", "limit"], ["tag=", "tag"]] as const) {
      const r = await t.request("GET", `/api/v1/contacts?${q}`, { token: ws.owner.token });
      expect(r.status).toBe(400);
      expect(r.body.errors).toHaveProperty([field]);
    }
  });
});

test("roles (docs/team-and-billing.md): owner, admin and agent write; a viewer reads but cannot write", async () => {
  const c = (await create({ phone: "919845050001" })).body.data;
  for (const role of ["admin", "agent"] as const) {
    const m = await ws.member(role);
    const made = await create({ phone: role === "admin" ? "919845050002" : "919845050003" }, m.token);
    expect(made.status).toBe(201);
    expect((await t.request("PATCH", `/api/v1/contacts/${made.body.data.id}`, { token: m.token, body: { name: role } })).status).toBe(200);
    expect((await t.request("DELETE", `/api/v1/contacts/${made.body.data.id}`, { token: m.token })).status).toBe(200);
  }
  const viewer = await ws.member("viewer");
  expect((await t.request("GET", `/api/v1/contacts/${c.id}`, { token: viewer.token })).status).toBe(200);
  expect((await t.request("GET", "/api/v1/contacts/export", { token: viewer.token })).status).toBe(200);
  const before = await digest(ws.id);
  for (const [method, path, body] of [
    ["POST", "/api/v1/contacts", { phone: "919845050009" }],
    ["PATCH", `/api/v1/contacts/${c.id}`, { name: "x" }],
    ["DELETE", `/api/v1/contacts/${c.id}`, undefined],
  ] as const) {
    const r = await t.request(method, path, { token: viewer.token, body });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("FORBIDDEN");
  }
  const form = new FormData();
  form.append("file", new File(["phone\n919845050010\n"], "c.csv"));
  expect((await t.request("POST", "/api/v1/contacts/import", { token: viewer.token, body: form })).body.code).toBe("FORBIDDEN");
  expect(await digest(ws.id)).toBe(before);
});

test("another workspace gets 404 on every route by id, and sees none of the contacts", async () => {
  const c = (await create({ phone: "919845060001", tags: ["secret"] })).body.data;
  const form = new FormData();
  form.append("file", new File(["phone\n919845060002\n"], "c.csv"));
  const imp = (await t.request("POST", "/api/v1/contacts/import", { token: ws.owner.token, body: form })).body.data;
  const before = await digest(ws.id);
  const tok = other.owner.token;
  expect((await t.request("GET", `/api/v1/contacts/${c.id}`, { token: tok })).status).toBe(404);
  expect((await t.request("PATCH", `/api/v1/contacts/${c.id}`, { token: tok, body: { name: "x" } })).status).toBe(404);
  expect((await t.request("DELETE", `/api/v1/contacts/${c.id}`, { token: tok })).status).toBe(404);
  expect((await t.request("GET", `/api/v1/contacts/imports/${imp.id}`, { token: tok })).status).toBe(404);
  expect((await t.request("GET", "/api/v1/contacts?tag=secret", { token: tok })).body.data).toEqual([]);
  const csv = await (await t.app.handle(new Request("http://localhost/api/v1/contacts/export", { headers: { authorization: `Bearer ${tok}` } }))).text();
  expect(csv).not.toContain("919845060001");
  expect(await digest(ws.id)).toBe(before);
});

describe("contacts quota (docs/team-and-billing.md)", () => {
  test("at the limit: 403 LIMIT_EXCEEDED; 50 parallel creates at limit minus one: exactly one succeeds", async () => {
    await upsertPlan(t.deps.db, "tiny", { name: "Tiny", monthlyPaise: 100, annualPaise: 1000, limits: { sessions: 1, messagesPerMonth: 10, contacts: 5, apiRequestsPerDay: 1000, webhooks: 1, teamSeats: 5, campaigns: false } }, 0);
    const w = await createWorkspace(t, { planId: "tiny", status: "active" });
    for (let i = 0; i < 4; i++) expect((await create({ phone: `91984507000${i}` }, w.owner.token)).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => create({ phone: `9198450710${String(i).padStart(2, "0")}` }, w.owner.token)));
    expect(results.filter((r) => r.status === 201).length).toBe(1);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.code === "LIMIT_EXCEEDED")).toBe(true);
    expect(results.filter((r) => r.status === 403).length).toBe(49);
    expect(await t.deps.db.prepare("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(w.id)).toEqual({ n: 5 });
  });
});
