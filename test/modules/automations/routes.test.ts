import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "../messages/helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let session: { id: string };
let foreignSession: { id: string };
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  session = await connectedSession(t, ws);
  foreignSession = await connectedSession(t, other);
});
afterAll(() => t.close());

const keyword = { name: "Prices", trigger: { type: "keyword", keywords: [" PRICE ", "cost"], match: "exact" }, reply: { body: "Our prices: {{name|friend}}" } };

test("create, read, list, update and delete an automation; defaults filled", async () => {
  const created = await t.request("POST", "/api/v1/automations", { token: ws.owner.token, body: keyword });
  expect(created.status).toBe(201);
  const a = created.body.data;
  expect(a).toMatchObject({
    name: "Prices",
    trigger: { type: "keyword", keywords: ["PRICE", "cost"], match: "exact" },
    reply: { type: "text", body: "Our prices: {{name|friend}}" },
    sessionIds: null,
    cooldownMinutes: 60,
    isActive: true,
  });
  expect((await t.request("GET", `/api/v1/automations/${a.id}`, { token: ws.owner.token })).body.data).toEqual(a);
  const list = await t.request("GET", "/api/v1/automations", { token: ws.owner.token });
  expect(list.body.data.map((x: { id: string }) => x.id)).toContain(a.id);

  const changed = await t.request("PATCH", `/api/v1/automations/${a.id}`, { token: ws.owner.token, body: { isActive: false, cooldownMinutes: 5, sessionIds: [session.id] } });
  expect(changed.status).toBe(200);
  expect(changed.body.data).toMatchObject({ isActive: false, cooldownMinutes: 5, sessionIds: [session.id], name: "Prices" });

  const away = await t.request("PATCH", `/api/v1/automations/${a.id}`, { token: ws.owner.token, body: { trigger: { type: "away", hours: { mon: [{ from: "09:00", to: "17:30" }], sat: [] } } } });
  expect(away.body.data.trigger).toEqual({ type: "away", hours: { mon: [{ from: "09:00", to: "17:30" }], sat: [] } });

  expect((await t.request("DELETE", `/api/v1/automations/${a.id}`, { token: ws.owner.token })).status).toBe(200);
  expect((await t.request("GET", `/api/v1/automations/${a.id}`, { token: ws.owner.token })).status).toBe(404);
});

test("bad input: 400 naming the field, nothing stored", async () => {
  const before = (await t.request("GET", "/api/v1/automations", { token: ws.owner.token })).body.data.length;
  const cases: [unknown, string][] = [
    [{ ...keyword, name: "" }, "name"],
    [{ ...keyword, trigger: { type: "keyword", keywords: [] } }, "trigger.keywords"],
    [{ ...keyword, trigger: { type: "keyword", keywords: ["x"], match: "fuzzy" } }, "trigger.match"],
    [{ ...keyword, trigger: { type: "sometimes" } }, "trigger.type"],
    [{ ...keyword, trigger: { type: "away", hours: { mon: [{ from: "18:00", to: "09:00" }] } } }, "trigger.hours.mon.0.to"],
    [{ ...keyword, trigger: { type: "away", hours: { mon: [{ from: "9am", to: "17:00" }] } } }, "trigger.hours.mon.0.from"],
    [{ ...keyword, trigger: { type: "away", hours: { funday: [] } } }, "trigger.hours"],
    [{ ...keyword, reply: { body: "  " } }, "reply.body"],
    [{ ...keyword, reply: { body: "hi {{nme}}" } }, "reply.body"],
    [{ ...keyword, reply: { type: "image" } }, "reply.mediaId"],
    [{ ...keyword, reply: { type: "image", mediaId: Bun.randomUUIDv7() } }, "reply.mediaId"],
    [{ ...keyword, cooldownMinutes: -1 }, "cooldownMinutes"],
    [{ ...keyword, cooldownMinutes: 1.5 }, "cooldownMinutes"],
    [{ ...keyword, sessionIds: ["nope"] }, "sessionIds.0"],
    [{ ...keyword, sessionIds: [foreignSession.id] }, "sessionIds.0"],
  ];
  for (const [body, field] of cases) {
    const r = await t.request("POST", "/api/v1/automations", { token: ws.owner.token, body });
    expect(`${JSON.stringify(body)} -> ${r.status} ${r.body.code ?? ""}`).toBe(`${JSON.stringify(body)} -> 400 VALIDATION_ERROR`);
    expect(Object.keys(r.body.errors ?? {})).toContain(field);
  }
  const empty = await t.request("PATCH", `/api/v1/automations/${Bun.randomUUIDv7()}`, { token: ws.owner.token, body: {} });
  expect(empty.status).toBe(400);
  expect((await t.request("GET", "/api/v1/automations", { token: ws.owner.token })).body.data.length).toBe(before);
});

test("roles: owner and admin manage; agent and viewer read and get 403 on writes", async () => {
  const admin = await ws.member("admin");
  const made = await t.request("POST", "/api/v1/automations", { token: admin.token, body: keyword });
  expect(made.status).toBe(201);
  const id = made.body.data.id;
  for (const role of ["agent", "viewer"] as const) {
    const m = await ws.member(role);
    expect((await t.request("GET", "/api/v1/automations", { token: m.token })).status).toBe(200);
    expect((await t.request("GET", `/api/v1/automations/${id}`, { token: m.token })).status).toBe(200);
    expect((await t.request("POST", "/api/v1/automations", { token: m.token, body: keyword })).status).toBe(403);
    expect((await t.request("PATCH", `/api/v1/automations/${id}`, { token: m.token, body: { name: "x" } })).status).toBe(403);
    expect((await t.request("DELETE", `/api/v1/automations/${id}`, { token: m.token })).status).toBe(403);
  }
  expect((await t.request("GET", "/api/v1/automations")).status).toBe(401);
  expect((await t.request("PATCH", `/api/v1/automations/${id}`, { token: admin.token, body: { name: "Renamed" } })).body.data.name).toBe("Renamed");
});

test("workspace isolation: another workspace's automation is 404 on every route and missing from its list", async () => {
  const mine = (await t.request("POST", "/api/v1/automations", { token: ws.owner.token, body: keyword })).body.data;
  const tok = other.owner.token;
  expect((await t.request("GET", `/api/v1/automations/${mine.id}`, { token: tok })).status).toBe(404);
  expect((await t.request("PATCH", `/api/v1/automations/${mine.id}`, { token: tok, body: { name: "stolen" } })).status).toBe(404);
  expect((await t.request("DELETE", `/api/v1/automations/${mine.id}`, { token: tok })).status).toBe(404);
  expect((await t.request("GET", "/api/v1/automations", { token: tok })).body.data.map((a: { id: string }) => a.id)).not.toContain(mine.id);
  expect((await t.request("GET", `/api/v1/automations/${mine.id}`, { token: ws.owner.token })).body.data.name).toBe("Prices");
});

test("the routes are in the OpenAPI document", async () => {
  const doc = (await t.request("GET", "/openapi.json")).body;
  expect(Object.keys(doc.paths["/api/v1/automations"]).sort()).toEqual(["get", "post"]);
  expect(Object.keys(doc.paths["/api/v1/automations/{id}"]).sort()).toEqual(["delete", "get", "patch"]);
  expect(doc.paths["/api/v1/automations"].post.responses["201"]).toBeDefined();
});

test("the workspace's time zone: set with PATCH /api/workspace, refused when unknown", async () => {
  expect((await t.request("GET", "/api/workspace", { token: ws.owner.token })).body.data.timezone).toBe("UTC");
  const bad = await t.request("PATCH", "/api/workspace", { token: ws.owner.token, body: { timezone: "Mars/Olympus" } });
  expect(bad.status).toBe(400);
  expect(Object.keys(bad.body.errors)).toEqual(["timezone"]);
  const set = await t.request("PATCH", "/api/workspace", { token: ws.owner.token, body: { timezone: "Europe/Berlin" } });
  expect(set.body.data.timezone).toBe("Europe/Berlin");
});
