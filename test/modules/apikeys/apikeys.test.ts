import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { guardApp } from "./guard-app.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let call: ReturnType<typeof guardApp>;

beforeAll(async () => {
  t = await createTestApp();
  a = await createWorkspace(t);
  b = await createWorkspace(t);
  call = guardApp(t);
});
afterAll(() => t.close());

const create = async (ws: TestWorkspace, body: unknown = { name: "server" }) => t.request("POST", "/api/api-keys", { token: ws.owner.token, body });
const row = async (id: string) => (await t.deps.db.prepare("SELECT * FROM api_keys WHERE id = ?").get(id)) as any;

describe("API keys (docs/api.md)", () => {
  test("create answers 201 with the key once; only its SHA-256 is stored", async () => {
    const r = await create(a, { name: "billing server" });
    expect(r.status).toBe(201);
    const { key, id, prefix, name, createdAt, lastUsedAt, expiresAt } = r.body.data;
    expect(key).toMatch(/^pk_[0-9A-Za-z]{40}$/);
    expect(prefix).toBe(key.slice(0, 11));
    expect({ name, lastUsedAt, expiresAt }).toEqual({ name: "billing server", lastUsedAt: null, expiresAt: null });
    expect(new Date(createdAt).toISOString()).toBe(createdAt);
    const stored = await row(id);
    expect(stored.key_hash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(key);
    const list = await t.request("GET", "/api/api-keys", { token: a.owner.token });
    const listed = list.body.data.find((k: any) => k.id === id);
    expect(listed).toEqual({ id, name: "billing server", prefix, createdAt, lastUsedAt: null, expiresAt: null });
    expect(JSON.stringify(list.body)).not.toContain(key);
  });

  test("keys are distinct and random", async () => {
    const keys = new Set<string>();
    for (let i = 0; i < 5; i++) keys.add((await create(a, { name: `k${i}` })).body.data.key);
    expect(keys.size).toBe(5);
  });

  test("expiresAt must be in the future; a past value is 400 naming the field", async () => {
    const past = await create(a, { name: "x", expiresAt: new Date(t.clock.now().getTime() - 1000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.errors.expiresAt).toBeDefined();
    const bad = await create(a, { name: "x", expiresAt: "tomorrow" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.expiresAt).toBeDefined();
    const noName = await create(a, {});
    expect(noName.status).toBe(400);
    expect(noName.body.errors.name).toBe("is required");
  });

  test("a key works on /api/external; a JWT does not, and a key does not work on JWT routes (401 both ways)", async () => {
    const key = (await create(a)).body.data.key;
    const ok = await call("GET", "/api/external/probe", { apiKey: key });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ kind: "apiKey", workspaceId: a.id, role: "admin" });
    expect((await call("GET", "/api/external/probe", { token: a.owner.token })).status).toBe(401);
    expect((await call("GET", "/api/probe", { apiKey: key })).status).toBe(401);
    expect((await call("GET", "/api/external/probe")).status).toBe(401);
    expect((await call("GET", "/api/external/probe", { apiKey: "pk_" + "x".repeat(40) })).status).toBe(401);
    expect((await call("GET", "/api/external/probe", { apiKey: "nonsense" })).status).toBe(401);
  });

  test("either-credential routes (messages/send) take a key or a JWT", async () => {
    const key = (await create(a)).body.data.key;
    expect((await call("POST", "/api/probe/either", { apiKey: key })).body.data.kind).toBe("apiKey");
    expect((await call("POST", "/api/probe/either", { token: a.owner.token })).body.data.kind).toBe("user");
    const viewer = await a.member("viewer");
    const r = await call("POST", "/api/probe/either", { token: viewer.token });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("FORBIDDEN");
  });

  test("revoke works at once; the revoked key is gone from the list and answers 401", async () => {
    const { id, key } = (await create(a)).body.data;
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    const del = await t.request("DELETE", `/api/api-keys/${id}`, { token: a.owner.token });
    expect(del.status).toBe(200);
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(401);
    const list = await t.request("GET", "/api/api-keys?limit=100", { token: a.owner.token });
    expect(list.body.data.map((k: any) => k.id)).not.toContain(id);
    expect((await t.request("DELETE", `/api/api-keys/${id}`, { token: a.owner.token })).status).toBe(404);
  });

  test("an expired key answers 401", async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const { key } = (await create(a, { name: "short", expiresAt })).body.data;
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    t.clock.advance(61_000);
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(401);
  });

  test("lastUsedAt is batched: no write per request, visible in the list at once, written by the flush job", async () => {
    const { id, key } = (await create(a)).body.data;
    t.clock.advance(5_000);
    const usedAt = t.clock.now().toISOString();
    for (let i = 0; i < 3; i++) expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    expect((await row(id)).last_used_at).toBeNull();
    const listed = (await t.request("GET", "/api/api-keys?limit=100", { token: a.owner.token })).body.data.find((k: any) => k.id === id);
    expect(listed.lastUsedAt).toBe(usedAt);
    const flush = t.services.periodic.find((j) => j.name === "apikeys.flush-last-used")!;
    await flush.run();
    expect((await row(id)).last_used_at).toBe(Date.parse(usedAt));
    await flush.run(); // nothing pending: safe to run again
    expect((await row(id)).last_used_at).toBe(Date.parse(usedAt));
  });

  test("pending lastUsedAt is written when the runtime stops", async () => {
    const t2 = await createTestApp();
    const ws = await createWorkspace(t2);
    const { id, key } = (await t2.request("POST", "/api/api-keys", { token: ws.owner.token, body: { name: "k" } })).body.data;
    expect((await guardApp(t2)("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    const lastUsed = async () => ((await t2.deps.db.prepare("SELECT last_used_at FROM api_keys WHERE id = ?").get(id)) as any).last_used_at;
    expect(await lastUsed()).toBeNull();
    await t2.stop();
    expect(await lastUsed()).toBe(t2.clock.now().getTime());
    await t2.close();
  });

  test("agents and viewers cannot manage keys (403 FORBIDDEN); admins can", async () => {
    for (const role of ["agent", "viewer"] as const) {
      const m = await a.member(role);
      const before = ((await t.deps.db.prepare("SELECT count(*) AS n FROM api_keys").get()) as any).n;
      const r = await t.request("POST", "/api/api-keys", { token: m.token, body: { name: "nope" } });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("FORBIDDEN");
      expect((await t.request("GET", "/api/api-keys", { token: m.token })).status).toBe(403);
      expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM api_keys").get()) as any).n).toBe(before);
    }
    const admin = await a.member("admin");
    expect((await t.request("POST", "/api/api-keys", { token: admin.token, body: { name: "ok" } })).status).toBe(201);
  });

  test("tenancy: another workspace's key ids answer 404 and its keys never show", async () => {
    const { id, key } = (await create(b, { name: "b-key" })).body.data;
    const del = await t.request("DELETE", `/api/api-keys/${id}`, { token: a.owner.token });
    expect(del.status).toBe(404);
    expect(del.body.code).toBe("NOT_FOUND");
    expect((await row(id)).revoked_at).toBeNull();
    const list = await t.request("GET", "/api/api-keys?limit=100", { token: a.owner.token });
    expect(list.body.data.map((k: any) => k.id)).not.toContain(id);
    expect((await call("GET", "/api/external/probe", { apiKey: key })).body.data.workspaceId).toBe(b.id);
  });

  test("a malformed id is 400 naming it", async () => {
    const r = await t.request("DELETE", "/api/api-keys/not-a-uuid", { token: a.owner.token });
    expect(r.status).toBe(400);
    expect(r.body.errors.id).toBeDefined();
  });
});
