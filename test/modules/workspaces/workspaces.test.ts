import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;

beforeAll(async () => {
  t = await createTestApp();
  a = await createWorkspace(t, { name: "Acme" });
  b = await createWorkspace(t, { name: "Globex" });
});
afterAll(() => t.close());

describe("/api/workspace", () => {
  test("every member reads their own workspace, never another", async () => {
    const viewer = await a.member("viewer");
    const r = await t.request("GET", "/api/workspace", { token: viewer.token });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: a.id, name: "Acme", planId: "growth", subscriptionStatus: "trialing", require2fa: false });
    expect(JSON.stringify(r.body)).not.toContain(b.id);
  });

  test("owner and admin rename it and require a second factor", async () => {
    const admin = await a.member("admin");
    const r = await t.request("PATCH", "/api/workspace", { token: admin.token, body: { name: "Acme India", require2fa: true } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: "Acme India", require2fa: true });
    const row = t.deps.sqlite.query("SELECT name, require_2fa AS r FROM workspaces WHERE id = ?").get(a.id) as any;
    expect(row).toEqual({ name: "Acme India", r: 1 });
    expect((t.deps.sqlite.query("SELECT name FROM workspaces WHERE id = ?").get(b.id) as any).name).toBe("Globex");
  });

  test("agents and viewers cannot change it (403, unchanged)", async () => {
    for (const role of ["agent", "viewer"] as const) {
      const m = await a.member(role);
      const r = await t.request("PATCH", "/api/workspace", { token: m.token, body: { name: "Hijacked" } });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("FORBIDDEN");
    }
    expect((t.deps.sqlite.query("SELECT name FROM workspaces WHERE id = ?").get(a.id) as any).name).not.toBe("Hijacked");
  });

  test("validation names the field; an empty change is refused", async () => {
    const short = await t.request("PATCH", "/api/workspace", { token: a.owner.token, body: { name: "A" } });
    expect(short.status).toBe(400);
    expect(short.body.errors.name).toBeDefined();
    const empty = await t.request("PATCH", "/api/workspace", { token: a.owner.token, body: {} });
    expect(empty.status).toBe(400);
    const type = await t.request("PATCH", "/api/workspace", { token: a.owner.token, body: { require2fa: "yes" } });
    expect(type.body.errors.require2fa).toBeDefined();
  });
});
