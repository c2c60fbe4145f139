import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { connectSession, createHook, emit, webhookApp } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let rx: Receiver;

beforeAll(async () => {
  t = await webhookApp();
  rx = startReceiver();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  await connectSession(t, ws.id);
  await connectSession(t, other.id);
});
afterAll(async () => {
  rx.stop();
  await t.close();
});

describe("GET /api/webhooks/events", () => {
  test("is public and lists the eight subscribable events", async () => {
    const r = await t.request("GET", "/api/webhooks/events");
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      "message_received", "message_sent", "message_delivered", "message_read", "message_failed", "campaign_progress", "session_connected", "session_disconnected",
    ]);
  });
});

describe("create", () => {
  test("201 with the secret once; dotted aliases are stored canonical, duplicates merged", async () => {
    const r = await t.request("POST", "/api/webhooks", {
      token: ws.owner.token,
      body: { name: "CRM", url: `${rx.url}/crm`, events: ["message.received", "message_received", "session.connected", "Campaign.Progress"] },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ name: "CRM", url: `${rx.url}/crm`, isActive: true, events: ["message_received", "session_connected", "campaign_progress"] });
    expect(r.body.data.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    const list = await t.request("GET", "/api/webhooks", { token: ws.owner.token });
    const got = await t.request("GET", `/api/webhooks/${r.body.data.id}`, { token: ws.owner.token });
    expect(JSON.stringify(list.body)).not.toContain(r.body.data.secret);
    expect(JSON.stringify(got.body)).not.toContain(r.body.data.secret);
    expect(got.body.data).toMatchObject({ id: r.body.data.id, name: "CRM", events: ["message_received", "session_connected", "campaign_progress"], isActive: true });
    // the secret is sealed at rest, not stored in clear
    const stored = (await t.deps.db.prepare("SELECT secret_enc FROM webhooks WHERE id = ?").get(r.body.data.id)) as { secret_enc: string };
    expect(stored.secret_enc).not.toContain(r.body.data.secret);
  });

  test("unknown event names and missing fields are 400 naming the field; nothing is created", async () => {
    const before = (await t.request("GET", "/api/webhooks", { token: ws.owner.token })).body.data.length;
    const r = await t.request("POST", "/api/webhooks", { token: ws.owner.token, body: { name: "x", url: `${rx.url}/x`, events: ["message_received", "message.exploded"] } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(r.body.errors["events.1"]).toContain("message.exploded");
    const empty = await t.request("POST", "/api/webhooks", { token: ws.owner.token, body: { name: "x", url: `${rx.url}/x`, events: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.errors.events).toBeDefined();
    const noName = await t.request("POST", "/api/webhooks", { token: ws.owner.token, body: { url: `${rx.url}/x`, events: ["message_sent"] } });
    expect(noName.status).toBe(400);
    expect(noName.body.errors.name).toBeDefined();
    expect((await t.request("GET", "/api/webhooks", { token: ws.owner.token })).body.data.length).toBe(before);
  });

  test("409 CONFLICT when no session of the workspace is connected", async () => {
    const lonely = await createWorkspace(t);
    const r = await t.request("POST", "/api/webhooks", { token: lonely.owner.token, body: { name: "x", url: `${rx.url}/x`, events: ["message_sent"] } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CONFLICT");
    // a connected session elsewhere does not count
    expect((await t.request("GET", "/api/webhooks", { token: lonely.owner.token })).body.data).toEqual([]);
  });

  test("the webhook count is a plan limit (free plan: 1)", async () => {
    const free = await createWorkspace(t, { status: "free", planId: "free" });
    await connectSession(t, free.id);
    await createHook(t, free, `${rx.url}/one`);
    const r = await t.request("POST", "/api/webhooks", { token: free.owner.token, body: { name: "two", url: `${rx.url}/two`, events: ["message_sent"] } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("LIMIT_EXCEEDED");
  });

  test("roles: viewers and agents may read but not manage", async () => {
    const viewer = await ws.member("viewer");
    const agent = await ws.member("agent");
    const admin = await ws.member("admin");
    for (const m of [viewer, agent]) {
      const r = await t.request("POST", "/api/webhooks", { token: m.token, body: { name: "x", url: `${rx.url}/x`, events: ["message_sent"] } });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("FORBIDDEN");
      expect((await t.request("GET", "/api/webhooks", { token: m.token })).status).toBe(200);
    }
    expect((await t.request("POST", "/api/webhooks", { token: admin.token, body: { name: "adm", url: `${rx.url}/a`, events: ["message_sent"] } })).status).toBe(201);
    expect((await t.request("GET", "/api/webhooks")).status).toBe(401);
  });
});

describe("URL guard at save time (operator defaults: HTTPS only, public addresses only)", () => {
  let strict: TestApp;
  let sws: TestWorkspace;
  beforeAll(async () => {
    const { createTestApp } = await import("../../helpers/app.ts");
    strict = await createTestApp();
    sws = await createWorkspace(strict);
    await connectSession(strict, sws.id);
  });
  afterAll(() => strict.close());

  for (const url of ["http://hooks.example.com/x", "https://127.0.0.1/x", "https://127.1/x", "https://0x7f.0.0.1/", "https://2130706433/", "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://10.0.0.8/", "https://169.254.169.254/latest", "https://localhost/x", "https://[fe80::1]/", "https://100.64.1.1/", "ftp://8.8.8.8/", "not a url"]) {
    test(`refuses ${url}`, async () => {
      const r = await strict.request("POST", "/api/webhooks", { token: sws.owner.token, body: { name: "x", url, events: ["message_sent"] } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(r.body.errors.url).toBeTruthy();
    });
  }

  test("an update to a refused URL is refused too", async () => {
    const wid = Bun.randomUUIDv7();
    const now = strict.clock.now().getTime();
    await strict.deps.db
      .prepare(`INSERT INTO webhooks (id, workspace_id, name, url, events, secret_enc, created_at, updated_at) VALUES (?, ?, 'h', 'https://8.8.8.8/', '["message_sent"]', 'v1:x', ?, ?)`)
      .run(wid, sws.id, now, now);
    const r = await strict.request("PATCH", `/api/webhooks/${wid}`, { token: sws.owner.token, body: { url: "https://192.168.1.1/hook" } });
    expect(r.status).toBe(400);
    expect(r.body.errors.url).toContain("private");
    expect((await strict.request("GET", `/api/webhooks/${wid}`, { token: sws.owner.token })).body.data.url).toBe("https://8.8.8.8/");
  });
});

describe("update, rotate, delete", () => {
  test("PATCH changes fields; isActive false stops new deliveries; true resumes", async () => {
    const h = await createHook(t, ws, `${rx.url}/p`, ["message_sent"]);
    const r = await t.request("PATCH", `/api/webhooks/${h.id}`, { token: ws.owner.token, body: { name: "Renamed", events: ["message.read"], isActive: false } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: "Renamed", events: ["message_read"], isActive: false, disabledReason: null });
    await emit(t, ws.id, "message_read", { sessionId: "s", messageId: "m", readAt: t.clock.now().toISOString() });
    expect((await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?").get(h.id))).toEqual({ n: 0 });
    await t.request("PATCH", `/api/webhooks/${h.id}`, { token: ws.owner.token, body: { isActive: true } });
    await emit(t, ws.id, "message_read", { sessionId: "s", messageId: "m2", readAt: t.clock.now().toISOString() });
    expect((await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?").get(h.id))).toEqual({ n: 1 });
    const bad = await t.request("PATCH", `/api/webhooks/${h.id}`, { token: ws.owner.token, body: { events: ["nope"] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors["events.0"]).toBeDefined();
    const none = await t.request("PATCH", `/api/webhooks/${h.id}`, { token: ws.owner.token, body: {} });
    expect(none.status).toBe(400);
  });

  test("rotate returns a new secret once; delete removes the webhook and its history", async () => {
    const h = await createHook(t, ws, `${rx.url}/r`);
    const r = await t.request("POST", `/api/webhooks/${h.id}/rotate-secret`, { token: ws.owner.token });
    expect(r.status).toBe(200);
    expect(r.body.data.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.data.secret).not.toBe(h.secret);
    await emit(t, ws.id, "message_received", { sessionId: "s", from: "1", messageId: "m", text: "hi" });
    const d = await t.request("DELETE", `/api/webhooks/${h.id}`, { token: ws.owner.token });
    expect(d.status).toBe(200);
    expect((await t.request("GET", `/api/webhooks/${h.id}`, { token: ws.owner.token })).status).toBe(404);
    expect((await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?").get(h.id))).toEqual({ n: 0 });
  });
});

describe("tenancy: another workspace's ids answer 404 and its data never shows", () => {
  test("every route by id", async () => {
    const mine = await createHook(t, ws, `${rx.url}/mine`, ["message_sent"]);
    await emit(t, ws.id, "message_sent", { sessionId: "s", to: "1", messageId: "m" });
    const deliveryId = ((await t.deps.db.prepare("SELECT id FROM webhook_deliveries WHERE webhook_id = ?").get(mine.id)) as { id: string }).id;
    const tok = other.owner.token;
    const calls: [string, string, unknown?][] = [
      ["GET", `/api/webhooks/${mine.id}`],
      ["PATCH", `/api/webhooks/${mine.id}`, { name: "hijack" }],
      ["DELETE", `/api/webhooks/${mine.id}`],
      ["POST", `/api/webhooks/${mine.id}/rotate-secret`],
      ["GET", `/api/webhooks/${mine.id}/history`],
      ["POST", `/api/webhooks/${mine.id}/test`],
      ["POST", `/api/webhooks/${mine.id}/deliveries/${deliveryId}/retry`],
    ];
    for (const [method, path, body] of calls) {
      const r = await t.request(method, path, { token: tok, body });
      expect(`${method} ${path} ${r.status} ${r.body.code}`).toBe(`${method} ${path} 404 NOT_FOUND`);
    }
    // the other workspace's own webhook cannot reach my delivery either
    const theirs = await createHook(t, other, `${rx.url}/theirs`, ["message_sent"]);
    const cross = await t.request("POST", `/api/webhooks/${theirs.id}/deliveries/${deliveryId}/retry`, { token: tok });
    expect(cross.status).toBe(404);
    const list = await t.request("GET", "/api/webhooks", { token: tok });
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([theirs.id]);
    expect((await t.request("GET", `/api/webhooks/${mine.id}`, { token: ws.owner.token })).body.data.name).toBe("hook");
    expect(rx.received.length).toBe(0);
  });

  test("events of one workspace never create deliveries for another's webhooks", async () => {
    const theirs = await createHook(t, other, `${rx.url}/iso`, ["message_delivered"]);
    await emit(t, ws.id, "message_delivered", { sessionId: "s", messageId: "m", deliveredAt: t.clock.now().toISOString() });
    expect((await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?").get(theirs.id))).toEqual({ n: 0 });
  });

  test("malformed ids are 400 naming the field", async () => {
    const r = await t.request("GET", "/api/webhooks/not-a-uuid", { token: ws.owner.token });
    expect(r.status).toBe(400);
    expect(r.body.errors.id).toBeDefined();
    const r2 = await t.request("POST", `/api/webhooks/${Bun.randomUUIDv7()}/deliveries/zzz/retry`, { token: ws.owner.token });
    expect(r2.status).toBe(400);
    expect(r2.body.errors.deliveryId).toBeDefined();
  });
});
