import { afterAll, describe, expect, test } from "bun:test";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { campaign, campaignBody, newCampaign, seedContacts } from "./helpers.ts";

const t = await createTestApp();
afterAll(() => t.close());

const ws = await createWorkspace(t);
const other = await createWorkspace(t);
const now = t.clock.now().getTime();
const sessionId = Bun.randomUUIDv7();
await t.deps.db
  .prepare("INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, 'main', 'connected', '919800000001', ?, ?, ?)")
  .run(sessionId, ws.id, now, now, now);
const people = await seedContacts(t, ws, 5, (i) => ({ optedOut: i === 4 }));
const body = (over: Record<string, unknown> = {}) => campaignBody([sessionId], people.map((p) => p.id), over);

describe("validation: 400 VALIDATION_ERROR with the fields named, nothing created", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["unknown variable", { message: { type: "text", body: "Hi {{email}}" } }, "message.body"],
    ["unclosed variable", { message: { type: "text", body: "Hi {{name" } }, "message.body"],
    ["bad attribute key", { message: { type: "text", body: "Hi {{attributes.9x}}" } }, "message.body"],
    ["text without body", { message: { type: "text" } }, "message.body"],
    ["image without media", { message: { type: "image", body: "caption" } }, "message.mediaId"],
    ["two audiences", { audience: { contactIds: [people[0]!.id], segmentId: Bun.randomUUIDv7() } }, "audience"],
    ["no audience", { audience: {} }, "audience"],
    ["unknown filter condition", { audience: { filter: { colour: "red" } } }, "audience.filter"],
    ["empty tag list in a filter", { audience: { filter: { tagsAny: [] } } }, "audience.filter.tagsAny"],
    ["too many contact ids", { audience: { contactIds: Array.from({ length: 10_001 }, () => Bun.randomUUIDv7()) } }, "audience.contactIds"],
    ["perMinute over 600", { pacing: { perMinute: 601 } }, "pacing.perMinute"],
    ["jitter over 100", { pacing: { jitterPercent: 101 } }, "pacing.jitterPercent"],
    ["bad quiet hours", { pacing: { quietHours: { start: "25:00", end: "08:00", timezone: "Asia/Kolkata" } } }, "pacing.quietHours.start"],
    ["unknown time zone", { pacing: { quietHours: { start: "21:00", end: "08:00", timezone: "Mars/Olympus" } } }, "pacing.quietHours.timezone"],
    ["schedule without offset", { schedule: { at: "2030-01-01T09:00:00" } }, "schedule.at"],
    ["no sessions", { sessionIds: [] }, "sessionIds"],
    ["repeated session", { sessionIds: [sessionId, sessionId] }, "sessionIds"],
    ["empty name", { name: "" }, "name"],
  ];
  for (const [what, over, field] of cases) {
    test(what, async () => {
      const before = (await t.deps.db.prepare("SELECT count(*) AS n FROM campaigns").get() as { n: number }).n;
      const r = await t.request("POST", "/api/v1/campaigns", { token: ws.owner.token, body: body(over) });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(r.body.errors)).toContain(field);
      expect((await t.deps.db.prepare("SELECT count(*) AS n FROM campaigns").get() as { n: number }).n).toBe(before);
    });
  }
  test("known variables with defaults pass", async () => {
    const r = await t.request("POST", "/api/v1/campaigns", {
      token: ws.owner.token,
      body: body({ message: { type: "text", body: "{{ name | friend }} {{phone}} {{attributes.city|Pune}} {{attributes.plan}}" } }),
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: "draft", pausedReason: null, stats: { total: 0, pending: 0 }, schedule: null });
    expect(r.body.data.pacing).toEqual({ perMinute: 600, jitterPercent: 0, dailyCapPerSession: 1000, warmup: false, quietHours: null });
  });
  test("PATCH and list queries are validated too", async () => {
    const id = await newCampaign(t, ws, body(), false);
    const p = await t.request("PATCH", `/api/v1/campaigns/${id}`, { token: ws.owner.token, body: { pacing: { perMinute: 0 } } });
    expect(p.status).toBe(400);
    expect(Object.keys(p.body.errors)).toContain("pacing.perMinute");
    const empty = await t.request("PATCH", `/api/v1/campaigns/${id}`, { token: ws.owner.token, body: {} });
    expect(empty.status).toBe(400);
    expect((await t.request("GET", "/api/v1/campaigns?limit=101", { token: ws.owner.token })).status).toBe(400);
    expect((await t.request("GET", "/api/v1/campaigns?status=nope", { token: ws.owner.token })).status).toBe(400);
    expect((await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=nope`, { token: ws.owner.token })).status).toBe(400);
    for (const [method, path] of [
      ["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/start"], ["POST", "/pause"], ["POST", "/resume"],
      ["POST", "/cancel"], ["POST", "/retry-failed"], ["GET", "/recipients"],
    ] as const) {
      const r = await t.request(method, `/api/v1/campaigns/not-a-uuid${path}`, { token: ws.owner.token, body: method === "PATCH" ? { name: "x" } : undefined });
      expect(`${method} ${path}: ${r.status} ${Object.keys(r.body.errors ?? {})}`).toBe(`${method} ${path}: 400 id`);
    }
  });
});

test("PATCH merges pacing fields and works only in draft", async () => {
  const id = await newCampaign(t, ws, body(), false);
  const p = await t.request("PATCH", `/api/v1/campaigns/${id}`, { token: ws.owner.token, body: { name: "Diwali", pacing: { perMinute: 5 } } });
  expect(p.status).toBe(200);
  expect(p.body.data.name).toBe("Diwali");
  expect(p.body.data.pacing).toMatchObject({ perMinute: 5, jitterPercent: 0, warmup: false });
  expect((await t.request("POST", `/api/v1/campaigns/${id}/start`, { token: ws.owner.token })).status).toBe(200);
  const late = await t.request("PATCH", `/api/v1/campaigns/${id}`, { token: ws.owner.token, body: { name: "x" } });
  expect(late.status).toBe(409);
  expect(late.body.code).toBe("CONFLICT");
});

test("start freezes the audience: opted-out contacts skipped, repeated ids recorded as duplicates; recipients list by status", async () => {
  const ids = [...people.map((p) => p.id), people[0]!.id, Bun.randomUUIDv7()];
  const id = await newCampaign(t, ws, campaignBody([sessionId], ids));
  const c = await campaign(t, ws, id);
  expect(c.status).toBe("running");
  expect(c.stats).toEqual({ total: 6, pending: 4, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 2 });
  const all = await t.request("GET", `/api/v1/campaigns/${id}/recipients?limit=10`, { token: ws.owner.token });
  expect(all.body.pagination).toEqual({ page: 1, limit: 10, total: 6, totalPages: 1 });
  const skipped = await t.request("GET", `/api/v1/campaigns/${id}/recipients?status=skipped`, { token: (await ws.member("viewer")).token });
  expect(skipped.body.data.map((r: { skippedReason: string }) => r.skippedReason).sort()).toEqual(["duplicate", "opted_out"]);
  expect(skipped.body.data[0]).toMatchObject({ messageId: null, sessionId: null, error: null, sentAt: null });
});

describe("transitions: exactly the documented ones, anything else 409 CONFLICT", () => {
  const go = (id: string, action: string) => t.request("POST", `/api/v1/campaigns/${id}/${action}`, { token: ws.owner.token });
  test("draft: pause, resume, retry-failed refused; cancel allowed; cancelled refuses all but delete", async () => {
    const id = await newCampaign(t, ws, body(), false);
    for (const a of ["pause", "resume", "retry-failed"]) expect(`${a}:${(await go(id, a)).status}`).toBe(`${a}:409`);
    expect((await go(id, "cancel")).body.data.status).toBe("cancelled");
    for (const a of ["start", "pause", "resume", "cancel", "retry-failed"]) expect(`${a}:${(await go(id, a)).status}`).toBe(`${a}:409`);
    expect((await t.request("DELETE", `/api/v1/campaigns/${id}`, { token: ws.owner.token })).status).toBe(200);
    expect((await t.request("GET", `/api/v1/campaigns/${id}`, { token: ws.owner.token })).status).toBe(404);
  });
  test("running: start and resume refused, delete refused; pause then resume; cancel skips the pending", async () => {
    const id = await newCampaign(t, ws, body());
    for (const a of ["start", "resume"]) expect(`${a}:${(await go(id, a)).status}`).toBe(`${a}:409`);
    expect((await t.request("DELETE", `/api/v1/campaigns/${id}`, { token: ws.owner.token })).status).toBe(409);
    const paused = await go(id, "pause");
    expect(paused.body.data).toMatchObject({ status: "paused", pausedReason: "user_request" });
    expect((await go(id, "pause")).status).toBe(409);
    expect((await t.request("DELETE", `/api/v1/campaigns/${id}`, { token: ws.owner.token })).status).toBe(409);
    expect((await go(id, "resume")).body.data).toMatchObject({ status: "running", pausedReason: null });
    const cancelled = (await go(id, "cancel")).body.data;
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.stats).toMatchObject({ total: 5, pending: 0, skipped: 5 });
  });
  test("scheduled: pause, resume back to scheduled, cancel", async () => {
    const at = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const id = await newCampaign(t, ws, body({ schedule: { at, maxLatenessMinutes: 30 } }));
    expect((await campaign(t, ws, id)).status).toBe("scheduled");
    expect((await go(id, "start")).status).toBe(409);
    expect((await go(id, "pause")).body.data.status).toBe("paused");
    expect((await go(id, "resume")).body.data.status).toBe("scheduled");
    expect((await go(id, "cancel")).body.data.status).toBe("cancelled");
  });
});

describe("roles (docs/team-and-billing.md), other workspaces, plan", () => {
  test("agents and viewers read but do not manage", async () => {
    const id = await newCampaign(t, ws, body(), false);
    for (const role of ["agent", "viewer"] as const) {
      const m = await ws.member(role);
      expect((await t.request("GET", `/api/v1/campaigns/${id}`, { token: m.token })).status).toBe(200);
      expect((await t.request("GET", "/api/v1/campaigns", { token: m.token })).status).toBe(200);
      expect((await t.request("GET", `/api/v1/campaigns/${id}/recipients`, { token: m.token })).status).toBe(200);
      for (const [method, path, b] of [
        ["POST", "/api/v1/campaigns", body()],
        ["PATCH", `/api/v1/campaigns/${id}`, { name: "x" }],
        ["DELETE", `/api/v1/campaigns/${id}`, undefined],
        ["POST", `/api/v1/campaigns/${id}/start`, undefined],
        ["POST", `/api/v1/campaigns/${id}/cancel`, undefined],
      ] as const) {
        const r = await t.request(method, path, { token: m.token, body: b });
        expect(`${role} ${method} ${path}: ${r.status} ${r.body.code}`).toBe(`${role} ${method} ${path}: 403 FORBIDDEN`);
      }
    }
    const admin = await ws.member("admin");
    expect((await t.request("POST", `/api/v1/campaigns/${id}/start`, { token: admin.token })).status).toBe(200);
  });
  test("another workspace: 404 for the campaign and for the sessions it names", async () => {
    const id = await newCampaign(t, ws, body(), false);
    for (const [method, path] of [
      ["GET", `/api/v1/campaigns/${id}`],
      ["GET", `/api/v1/campaigns/${id}/recipients`],
      ["PATCH", `/api/v1/campaigns/${id}`],
      ["DELETE", `/api/v1/campaigns/${id}`],
      ["POST", `/api/v1/campaigns/${id}/start`],
      ["POST", `/api/v1/campaigns/${id}/cancel`],
    ] as const) {
      const r = await t.request(method, path, { token: other.owner.token, body: method === "PATCH" ? { name: "x" } : undefined });
      expect(`${method} ${path}: ${r.status}`).toBe(`${method} ${path}: 404`);
    }
    const foreign = await t.request("POST", "/api/v1/campaigns", { token: other.owner.token, body: body() });
    expect(foreign.status).toBe(404);
    expect((await t.request("GET", "/api/v1/campaigns", { token: other.owner.token })).body.data).toEqual([]);
    expect((await campaign(t, ws, id)).status).toBe("draft");
  });
  test("Free plan: create and start answer 403 SUBSCRIPTION_INACTIVE", async () => {
    const id = await newCampaign(t, ws, body(), false);
    await t.deps.db.prepare("UPDATE workspaces SET plan_id = 'free', subscription_status = 'free' WHERE id = ?").run(ws.id);
    try {
      const create = await t.request("POST", "/api/v1/campaigns", { token: ws.owner.token, body: body() });
      expect([create.status, create.body.code]).toEqual([403, "SUBSCRIPTION_INACTIVE"]);
      const start = await t.request("POST", `/api/v1/campaigns/${id}/start`, { token: ws.owner.token });
      expect([start.status, start.body.code]).toEqual([403, "SUBSCRIPTION_INACTIVE"]);
      expect((await campaign(t, ws, id)).status).toBe("draft");
      // reading stays open
      expect((await t.request("GET", "/api/v1/campaigns", { token: ws.owner.token })).status).toBe(200);
    } finally {
      await t.deps.db.prepare("UPDATE workspaces SET plan_id = 'growth', subscription_status = 'trialing' WHERE id = ?").run(ws.id);
    }
  });
});

test("OpenAPI documents request and response schemas of every campaign route", async () => {
  const doc = (await t.request("GET", "/openapi.json")).body;
  const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).filter(([p]) => p.startsWith("/api/v1/campaigns"));
  expect(ops.map(([p]) => p).sort()).toEqual(
    [
      "/api/v1/campaigns",
      "/api/v1/campaigns/{id}",
      "/api/v1/campaigns/{id}/cancel",
      "/api/v1/campaigns/{id}/pause",
      "/api/v1/campaigns/{id}/recipients",
      "/api/v1/campaigns/{id}/resume",
      "/api/v1/campaigns/{id}/retry-failed",
      "/api/v1/campaigns/{id}/start",
    ].sort(),
  );
  for (const [path, methods] of ops) {
    for (const [method, op] of Object.entries(methods)) {
      const ok = op.responses?.["200"] ?? op.responses?.["201"];
      expect(`${method} ${path}: ${Boolean(ok?.content?.["application/json"]?.schema)}`).toBe(`${method} ${path}: true`);
    }
  }
  expect(doc.paths["/api/v1/campaigns"].post.requestBody.content["application/json"].schema.properties.pacing).toBeDefined();
  // the campaign part of the document is valid OpenAPI 3.0 on its own
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  const own = { ...doc, paths: Object.fromEntries(ops) };
  await SwaggerParser.validate(structuredClone(own));
});
