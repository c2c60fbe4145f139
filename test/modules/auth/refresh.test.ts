import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAuthApp, signedIn, verifiedAccount, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp();
});
afterAll(() => t.close());

const refresh = (refreshToken: string) => t.request("POST", "/api/auth/refresh", { body: { refreshToken } });

describe("refresh tokens", () => {
  test("opaque, stored only as a hash, 256 bits", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    expect(s.refreshToken.split(".")).toHaveLength(1);
    expect(Buffer.from(s.refreshToken, "base64url")).toHaveLength(32);
    const rows = (await t.deps.db.prepare("SELECT token_hash FROM refresh_tokens").all()) as any[];
    expect(JSON.stringify(rows)).not.toContain(s.refreshToken);
    expect(rows.some((r) => r.token_hash === new Bun.CryptoHasher("sha256").update(s.refreshToken).digest("hex"))).toBe(true);
  });

  test("rotation: each use returns a new pair; the new access token works", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const r = await refresh(s.refreshToken);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: "15m" });
    expect(r.body.data.refreshToken).not.toBe(s.refreshToken);
    expect((await t.request("GET", "/api/auth/profile", { token: r.body.data.accessToken })).status).toBe(200);
    expect((await refresh(r.body.data.refreshToken)).status).toBe(200);
  });

  test("reuse of a rotated token revokes the whole family (401), including the newest token", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const second = (await refresh(s.refreshToken)).body.data.refreshToken;
    const third = (await refresh(second)).body.data.refreshToken;
    const reused = await refresh(s.refreshToken);
    expect(reused.status).toBe(401);
    expect(reused.body.code).toBe("UNAUTHORIZED");
    expect((await refresh(third)).status).toBe(401);
    // another login (another family) is untouched
    const other = await signedIn(t, a.email, a.password);
    expect((await refresh(other.refreshToken)).status).toBe(200);
  });

  test("race: 10 parallel refreshes of one token, exactly one wins; the rest are reuse and kill the family", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(s.refreshToken)));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
    expect((await refresh(winners[0]!.body.data.refreshToken)).status).toBe(401);
    const family = (await t.deps.db
      .prepare("SELECT count(*) AS n, count(revoked_at) AS revoked FROM refresh_tokens WHERE user_id = (SELECT id FROM users WHERE email = ?)")
      .get(a.email)) as any;
    expect(family).toEqual({ n: 2, revoked: 2 });
  });

  test("the family lives 30 days from login, however often it rotates", async () => {
    const a = await verifiedAccount(t);
    let token = (await signedIn(t, a.email, a.password)).refreshToken;
    for (let i = 0; i < 3; i++) {
      t.clock.advance(10 * 86_400_000 - 2000);
      const r = await refresh(token);
      expect(r.status).toBe(200);
      token = r.body.data.refreshToken;
    }
    t.clock.advance(6000); // 30 days after the login
    expect((await refresh(token)).status).toBe(401);
  });

  test("unknown and garbage tokens are 401", async () => {
    expect((await refresh("A".repeat(43))).status).toBe(401);
    expect((await refresh("not even close")).status).toBe(401);
  });

  test("the new access token carries the current role", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    await t.deps.db.prepare("UPDATE users SET role = 'viewer' WHERE email = ?").run(a.email);
    const r = await refresh(s.refreshToken);
    const payload = JSON.parse(Buffer.from(r.body.data.accessToken.split(".")[1], "base64url").toString());
    expect(payload.role).toBe("viewer");
  });
});

describe("logout", () => {
  test("200 with a message; the refresh token (and its family) is refused afterwards", async () => {
    const a = await verifiedAccount(t);
    const s = await signedIn(t, a.email, a.password);
    const next = (await refresh(s.refreshToken)).body.data.refreshToken;
    const r = await t.request("POST", "/api/auth/logout", { body: { refreshToken: next } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, message: "Signed out" });
    expect((await refresh(next)).status).toBe(401);
    const row = (await t.deps.db.prepare("SELECT revoked_reason AS why FROM refresh_tokens WHERE token_hash = ?").get(new Bun.CryptoHasher("sha256").update(next).digest("hex"))) as any;
    expect(row.why).toBe("logout");
  });

  test("logout is idempotent and reveals nothing about unknown tokens", async () => {
    const r = await t.request("POST", "/api/auth/logout", { body: { refreshToken: "unknown-token" } });
    expect(r.status).toBe(200);
  });
});
