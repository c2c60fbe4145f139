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
    const row = (await t.deps.db.prepare("SELECT name, require_2fa AS r FROM workspaces WHERE id = ?").get(a.id)) as any;
    expect(row).toEqual({ name: "Acme India", r: 1 });
    expect(((await t.deps.db.prepare("SELECT name FROM workspaces WHERE id = ?").get(b.id)) as any).name).toBe("Globex");
  });

  test("requiring 2FA while members have no verified mobile (and no identity provider): 409 naming how many, unchanged", async () => {
    const c = await createWorkspace(t, { name: "Initech" });
    const invited = await c.member("agent");
    const noMobile = await c.member("viewer");
    await t.deps.db.prepare("UPDATE users SET mobile_verified_at = NULL WHERE id = ?").run(invited.userId);
    await t.deps.db.prepare("UPDATE users SET mobile = NULL, mobile_verified_at = NULL WHERE id = ?").run(noMobile.userId);
    const r = await t.request("PATCH", "/api/workspace", { token: c.owner.token, body: { name: "Initech 2", require2fa: true } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CONFLICT");
    expect(r.body.message).toContain("2 members");
    expect((await t.deps.db.prepare("SELECT name, require_2fa AS r FROM workspaces WHERE id = ?").get(c.id))).toEqual({ name: "Initech", r: 0 });
    // another workspace's unverified members do not count
    expect((await t.request("PATCH", "/api/workspace", { token: b.owner.token, body: { require2fa: true } })).status).toBe(200);
    // turning it off, or renaming, stays possible
    expect((await t.request("PATCH", "/api/workspace", { token: c.owner.token, body: { require2fa: false } })).status).toBe(200);
    expect((await t.request("PATCH", "/api/workspace", { token: c.owner.token, body: { name: "Initech 3" } })).status).toBe(200);
    await t.deps.db.prepare("UPDATE users SET mobile_verified_at = 1 WHERE id = ?").run(invited.userId);
    const one = await t.request("PATCH", "/api/workspace", { token: c.owner.token, body: { require2fa: true } });
    expect(one.status).toBe(409);
    expect(one.body.message).toContain("1 member ");
  });

  test("with an identity provider configured every member can pass (ID token): requiring 2FA is allowed", async () => {
    const o = await createTestApp({ config: { oidcIssuer: "https://idp.example.test", oidcAudience: "parley", oidcJwksUrl: "https://idp.example.test/jwks" } });
    try {
      const c = await createWorkspace(o);
      const m = await c.member("agent");
      await o.deps.db.prepare("UPDATE users SET mobile_verified_at = NULL WHERE id = ?").run(m.userId);
      const r = await o.request("PATCH", "/api/workspace", { token: c.owner.token, body: { require2fa: true } });
      expect(r.status).toBe(200);
      expect(r.body.data.require2fa).toBe(true);
    } finally {
      await o.close();
    }
  });

  test("agents and viewers cannot change it (403, unchanged)", async () => {
    for (const role of ["agent", "viewer"] as const) {
      const m = await a.member(role);
      const r = await t.request("PATCH", "/api/workspace", { token: m.token, body: { name: "Hijacked" } });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("FORBIDDEN");
    }
    expect(((await t.deps.db.prepare("SELECT name FROM workspaces WHERE id = ?").get(a.id)) as any).name).not.toBe("Hijacked");
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
