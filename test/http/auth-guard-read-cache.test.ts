// PostgreSQL's counterpart of auth-guard-snapshot.test.ts: the guard answers repeated credentials
// from the store's read cache (src/db/read-cache.ts). These tests change the rows behind a kept
// answer from ANOTHER connection pool on the same database (as the operator CLI or another node
// does) and check that the change is seen within the notification's latency; a change made
// through the app is seen by the very next request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openPostgresStore } from "../../src/db/postgres.ts";
import { readCache } from "../../src/db/read-cache.ts";
import type { DB } from "../../src/db/store.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { apiKeyFor, createWorkspace } from "../helpers/fixtures.ts";
import { testEngine } from "../helpers/postgres.ts";
import { eventually, newSession } from "../modules/sessions/helpers.ts";

const pg = testEngine === "postgres";
let t: TestApp;
let elsewhere: DB;
beforeAll(async () => {
  if (!pg) return;
  t = await createTestApp({ config: { rateLimitPerMinute: 1_000_000 } });
  await t.start(); // the event listener: what lets the read cache keep rows
  elsewhere = openPostgresStore(t.deps.config.databaseUrl!).db;
});
afterAll(async () => {
  if (!pg) return;
  await elsewhere.close();
  await t.close();
});

const sessions = (apiKey: string) => t.request("GET", "/api/external/sessions", { apiKey });
/** The kept rows were dropped: what another process committed is read again by the next request. */
const dropped = () => eventually(() => expect(readCache(t.deps.db).size).toBe(0), 2_000);

describe.skipIf(!pg)("PostgreSQL only (its read cache; SQLite's snapshot memo has its own tests): the guard sees other processes' changes", () => {
  test("a key revoked by another process is refused once the change is announced", async () => {
    const ws = await createWorkspace(t);
    const { key, id } = await apiKeyFor(t, ws);
    for (let i = 0; i < 3; i++) expect((await sessions(key)).status).toBe(200);
    expect(readCache(t.deps.db).size).toBeGreaterThan(0); // answered from memory now
    await elsewhere.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(Date.now(), id);
    await dropped();
    const r = await sessions(key);
    expect([r.status, r.body.code]).toEqual([401, "UNAUTHORIZED"]);
  });

  test("a session added by another process is listed once announced; each key sees its own workspace only", async () => {
    const a = await createWorkspace(t);
    const b = await createWorkspace(t);
    const ka = (await apiKeyFor(t, a)).key;
    const kb = (await apiKeyFor(t, b)).key;
    const s1 = await newSession(t, a, "one");
    await newSession(t, b, "theirs");
    for (let i = 0; i < 2; i++) expect((await sessions(ka)).body.data.map((s: { id: string }) => s.id)).toEqual([s1]);
    expect((await sessions(kb)).body.data.map((s: { name: string }) => s.name)).toEqual(["theirs"]);
    const s2 = Bun.randomUUIDv7();
    await elsewhere
      .prepare("INSERT INTO chat_sessions (id, workspace_id, name, status, created_at, updated_at) VALUES (?, ?, 'two', 'disconnected', ?, ?)")
      .run(s2, a.id, Date.now(), Date.now());
    await dropped();
    expect((await sessions(ka)).body.data.map((s: { id: string }) => s.id)).toEqual([s1, s2]);
    expect((await sessions(kb)).body.data.map((s: { name: string }) => s.name)).toEqual(["theirs"]);
  });

  test("a plan changed by another process is the plan the key's daily quota is held to once announced", async () => {
    const ws = await createWorkspace(t, { planId: "pro", status: "active" });
    const { key } = await apiKeyFor(t, ws);
    for (let i = 0; i < 3; i++) expect((await sessions(key)).status).toBe(200);
    const tiny = `tiny-${Bun.randomUUIDv7()}`;
    const limits = JSON.stringify({ sessions: 1, messagesPerMonth: 10, contacts: 10, apiRequestsPerDay: 4, webhooks: 1, teamSeats: 1, campaigns: false });
    await elsewhere.prepare("INSERT INTO plans (id, name, monthly_paise, annual_paise, limits, updated_at) VALUES (?, 'Tiny', 0, 0, ?, 0)").run(tiny, limits);
    await elsewhere.prepare("UPDATE workspaces SET plan_id = ? WHERE id = ?").run(tiny, ws.id);
    await dropped();
    // the new plan allows 4 requests a day and 3 were made: at most one more is answered
    const after = [];
    for (let i = 0; i < 2; i++) after.push(await sessions(key));
    expect(after.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    expect([after[1]!.status, after[1]!.body.code]).toEqual([403, "LIMIT_EXCEEDED"]);
  });

  test("a member demoted by another process gets the new role (and loses its permissions) once announced", async () => {
    const ws = await createWorkspace(t);
    const admin = await ws.member("admin");
    for (let i = 0; i < 3; i++) expect((await t.request("GET", "/api/auth/profile", { token: admin.token })).body.data.role).toBe("admin");
    expect((await t.request("GET", "/api/api-keys", { token: admin.token })).status).toBe(200);
    await elsewhere.prepare("UPDATE users SET role = 'viewer' WHERE id = ?").run(admin.userId);
    await dropped();
    expect((await t.request("GET", "/api/auth/profile", { token: admin.token })).body.data.role).toBe("viewer");
    expect((await t.request("GET", "/api/api-keys", { token: admin.token })).status).toBe(403);
  });

  test("a member removed by another process is refused once announced; demoted through the app, at once", async () => {
    const ws = await createWorkspace(t);
    const agent = await ws.member("agent");
    for (let i = 0; i < 2; i++) expect((await t.request("GET", "/api/auth/profile", { token: agent.token })).status).toBe(200);
    await elsewhere.prepare("DELETE FROM users WHERE id = ?").run(agent.userId);
    await dropped();
    expect((await t.request("GET", "/api/auth/profile", { token: agent.token })).status).toBe(401);
    const admin = await ws.member("admin");
    for (let i = 0; i < 2; i++) expect((await t.request("GET", "/api/api-keys", { token: admin.token })).status).toBe(200);
    await t.deps.db.prepare("UPDATE users SET role = 'viewer' WHERE id = ?").run(admin.userId);
    expect((await t.request("GET", "/api/api-keys", { token: admin.token })).status).toBe(403); // the next request, no wait
  });
});
