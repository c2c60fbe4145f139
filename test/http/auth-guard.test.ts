import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { generateKeyPair, SignJWT } from "jose";
import { corePlugin } from "../../src/http/core-plugin.ts";
import { errorsPlugin } from "../../src/http/errors-plugin.ts";
import { authGuard } from "../../src/http/auth-guard.ts";
import { ok } from "../../src/http/envelope.ts";
import { silentLogger } from "../../src/log.ts";
import { createAuthApp, registered, signedIn, verifiedAccount, type AuthTestApp } from "../modules/auth/helpers.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";

let t: AuthTestApp;
let ws: TestWorkspace;
const SECRET = "test-secret-".padEnd(48, "x");
const key = new TextEncoder().encode(SECRET);

beforeAll(async () => {
  t = await createAuthApp();
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

const nowS = () => Math.floor(t.clock.now().getTime() / 1000);
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

/** A token like the server's, with parts overridden. */
function mint(over: Record<string, unknown> = {}, opts: { alg?: string; key?: Uint8Array | CryptoKey; drop?: string[]; header?: Record<string, unknown> } = {}) {
  const claims: Record<string, unknown> = {
    sub: ws.owner.userId,
    tenant: ws.id,
    role: "owner",
    typ: "access",
    iss: "parley",
    aud: "parley-dashboard",
    iat: nowS(),
    exp: nowS() + 900,
    jti: crypto.randomUUID(),
    ...over,
  };
  for (const k of opts.drop ?? []) delete claims[k];
  return new SignJWT(claims).setProtectedHeader({ alg: opts.alg ?? "HS256", typ: "JWT", ...opts.header }).sign(opts.key ?? key);
}

const profile = (authorization?: string) => t.request("GET", "/api/auth/profile", { headers: authorization ? { authorization } : {} });
const expect401 = async (authorization: string | undefined, why: string) => {
  const r = await profile(authorization);
  expect({ why, status: r.status, code: r.body.code }).toEqual({ why, status: 401, code: "UNAUTHORIZED" });
};

describe("JWT guard: what it accepts", () => {
  test("a well-formed access token of a member (control)", async () => {
    expect((await profile(`Bearer ${await mint()}`)).status).toBe(200);
    expect((await profile(`bearer ${await mint()}`)).status).toBe(200);
  });
});

describe("JWT guard: 401 UNAUTHORIZED rejection set", () => {
  test("missing or malformed Authorization", async () => {
    await expect401(undefined, "missing");
    await expect401("Basic dXNlcjpwYXNz", "basic scheme");
    await expect401("Bearer", "no token");
    await expect401("Bearer a.b", "two parts");
    await expect401("Bearer not-a-jwt-at-all", "garbage");
    await expect401(`Bearer ${await mint()} extra`, "trailing junk");
    await expect401(`Bearer ${"a".repeat(5000)}`, "oversized");
  });

  test("alg none, and other algorithms (HS384, HS512, RS256)", async () => {
    const valid = await mint();
    const [, payload] = valid.split(".");
    await expect401(`Bearer ${b64({ alg: "none", typ: "JWT" })}.${payload}.`, "alg none");
    await expect401(`Bearer ${b64({ alg: "none", typ: "JWT" })}.${payload}`, "alg none without signature part");
    await expect401(`Bearer ${await mint({}, { alg: "HS384" })}`, "HS384");
    await expect401(`Bearer ${await mint({}, { alg: "HS512" })}`, "HS512");
    const rsa = await generateKeyPair("RS256");
    await expect401(`Bearer ${await mint({}, { alg: "RS256", key: rsa.privateKey })}`, "RS256");
  });

  test("tampered payload or signature, or another secret", async () => {
    const valid = await mint({ role: "viewer" });
    const [h, p, s] = valid.split(".");
    const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
    await expect401(`Bearer ${h}.${b64({ ...claims, role: "owner" })}.${s}`, "role raised");
    await expect401(`Bearer ${h}.${b64({ ...claims, exp: claims.exp + 86_400 })}.${s}`, "exp extended");
    await expect401(`Bearer ${h}.${p}.${s!.slice(0, -2)}${s!.endsWith("AA") ? "BB" : "AA"}`, "signature changed");
    await expect401(`Bearer ${await mint({}, { key: new TextEncoder().encode("another-secret-".padEnd(48, "y")) })}`, "other secret");
  });

  test("expired, missing exp, iat too old for the type, iat in the future", async () => {
    const token = await mint();
    t.clock.advance(15 * 60_000 + 6000);
    await expect401(`Bearer ${token}`, "expired");
    await expect401(`Bearer ${await mint({}, { drop: ["exp"] })}`, "no exp");
    await expect401(`Bearer ${await mint({ iat: nowS() - 16 * 60, exp: nowS() + 3600 })}`, "older than 15 minutes");
    await expect401(`Bearer ${await mint({ iat: nowS() + 600, exp: nowS() + 1200 })}`, "issued in the future");
    await expect401(`Bearer ${await mint({}, { drop: ["iat"] })}`, "no iat");
  });

  test("wrong audience or issuer, or missing claims", async () => {
    await expect401(`Bearer ${await mint({ aud: "someone-else" })}`, "audience");
    await expect401(`Bearer ${await mint({ iss: "evil" })}`, "issuer");
    for (const claim of ["aud", "iss", "sub", "tenant", "typ", "jti", "role"]) await expect401(`Bearer ${await mint({}, { drop: [claim] })}`, `no ${claim}`);
    await expect401(`Bearer ${await mint({ role: "superuser" })}`, "unknown role");
    await expect401(`Bearer ${await mint({}, { header: { typ: "at+jwt" } })}`, "header typ");
  });

  test("refresh, registration and login-challenge tokens are not access tokens", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    await expect401(`Bearer ${s.refreshToken}`, "refresh token");
    const reg = await registered(t);
    await expect401(`Bearer ${reg.registrationToken}`, "registration token");
    await expect401(`Bearer ${await mint({ typ: "registration" })}`, "registration typ");
    await expect401(`Bearer ${await mint({ typ: "login_challenge", cid: "x" })}`, "login challenge typ");
  });

  test("a removed member, or a tenant claim that is not the member's workspace", async () => {
    const other = await createWorkspace(t);
    await expect401(`Bearer ${await mint({ tenant: other.id })}`, "foreign tenant");
    const gone = await ws.member("agent");
    await t.deps.db.prepare("DELETE FROM users WHERE id = ?").run(gone.userId);
    await expect401(`Bearer ${gone.token}`, "removed member");
  });
});

describe("role check: 403 FORBIDDEN", () => {
  const app = () =>
    new Elysia()
      .use(corePlugin(t.deps.config, silentLogger))
      .use(errorsPlugin(silentLogger))
      .use(authGuard(t.deps))
      .get("/billing", ({ auth }) => ok({ role: auth.role }), { jwt: "billing" })
      .get("/manage", ({ auth }) => ok({ role: auth.role }), { jwt: "manage" });

  test("members lacking the permission get 403, others pass; the role is read fresh", async () => {
    const a = app();
    const call = async (path: string, token: string) => {
      const r = await a.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}` } }));
      return { status: r.status, body: (await r.json()) as any };
    };
    const viewer = await ws.member("viewer");
    const admin = await ws.member("admin");
    const owner = await accessToken(t, ws.owner.userId, ws.id, "owner");
    expect((await call("/billing", viewer.token)).body.code).toBe("FORBIDDEN");
    expect((await call("/billing", admin.token)).status).toBe(403);
    expect((await call("/manage", admin.token)).status).toBe(200);
    expect((await call("/billing", owner)).status).toBe(200);
    // demoted after the token was issued: the token's role claim does not help
    await t.deps.db.prepare("UPDATE users SET role = 'viewer' WHERE id = ?").run(admin.userId);
    expect((await call("/manage", admin.token)).status).toBe(403);
  });
});

describe("the guard runs before body validation", () => {
  test("no credential and a bad body: 401, not 400", async () => {
    const r = await t.request("PUT", "/api/auth/profile", { body: { name: 1 } });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe("UNAUTHORIZED");
  });
  test("a role without the permission and a bad body: 403, not 400", async () => {
    const viewer = await ws.member("viewer");
    const r = await t.request("POST", "/api/api-keys", { token: viewer.token, body: { name: 12 } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("FORBIDDEN");
  });
  test("a valid credential and a bad body: 400 naming the field", async () => {
    const fresh = await createWorkspace(t);
    const r = await t.request("PUT", "/api/auth/profile", { token: fresh.owner.token, body: { name: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.errors.name).toBeDefined();
  });
});
