import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { createAuthApp, signedIn, verifiedAccount, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp();
});
afterAll(() => t.close());

describe("profile", () => {
  test("GET: id, email, name, role, tenantId, tenantName, twoFactorEnabled, mobileMasked, mobileVerified", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const r = await t.request("GET", "/api/auth/profile", { token: s.accessToken });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      id: s.user.id,
      email: a.email,
      name: a.name,
      role: "owner",
      tenantId: expect.any(String),
      tenantName: a.tenantName,
      twoFactorEnabled: false,
      mobileMasked: a.mobile.slice(0, 2) + "******" + a.mobile.slice(-4),
      mobileVerified: true,
    });
  });

  test("PUT: updates the name and answers id and name", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const r = await t.request("PUT", "/api/auth/profile", { token: s.accessToken, body: { name: "  Renamed Person " } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: s.user.id, name: "Renamed Person" });
    expect((await t.request("GET", "/api/auth/profile", { token: s.accessToken })).body.data.name).toBe("Renamed Person");
  });

  test("tenancy: each member sees only itself and its own workspace", async () => {
    const w1 = await createWorkspace(t, { name: "First Co" });
    const w2 = await createWorkspace(t, { name: "Second Co" });
    const viewer = await w2.member("viewer");
    const p1 = (await t.request("GET", "/api/auth/profile", { token: w1.owner.token })).body.data;
    const p2 = (await t.request("GET", "/api/auth/profile", { token: viewer.token })).body.data;
    expect(p1).toMatchObject({ id: w1.owner.userId, tenantId: w1.id, tenantName: "First Co", role: "owner" });
    expect(p2).toMatchObject({ id: viewer.userId, tenantId: w2.id, tenantName: "Second Co", role: "viewer" });
    // a viewer may rename itself; the other workspace's owner is untouched
    expect((await t.request("PUT", "/api/auth/profile", { token: viewer.token, body: { name: "Viewer V" } })).status).toBe(200);
    expect((await t.request("GET", "/api/auth/profile", { token: w1.owner.token })).body.data.name).toBe("Test owner");
  });

  test("a token whose tenant claim names another workspace is refused", async () => {
    const w1 = await createWorkspace(t);
    const w2 = await createWorkspace(t);
    const { accessToken } = await import("../../helpers/fixtures.ts");
    const forged = await accessToken(t, w1.owner.userId, w2.id, "owner");
    expect((await t.request("GET", "/api/auth/profile", { token: forged })).status).toBe(401);
  });

  test("without a token: 401", async () => {
    expect((await t.request("GET", "/api/auth/profile")).status).toBe(401);
    expect((await t.request("PUT", "/api/auth/profile", { body: { name: "Someone" } })).status).toBe(401);
  });
});
