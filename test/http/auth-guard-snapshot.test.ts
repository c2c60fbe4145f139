// The guard answers repeated credentials from the snapshot memo (src/db/snapshot-memo.ts) on a
// file database: these tests change the rows behind a remembered answer from ANOTHER process
// (as the operator CLI does) and check that the very next request sees the change.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { snapshotMemo } from "../../src/db/snapshot-memo.ts";
import { sqliteOf } from "../../src/db/sqlite.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { apiKeyFor, createWorkspace } from "../helpers/fixtures.ts";
import { testEngine } from "../helpers/postgres.ts";
import { commitFromAnotherProcess } from "../helpers/process.ts";
import { newSession } from "../modules/sessions/helpers.ts";

let t: TestApp;
let dbFile: string;
beforeAll(async () => {
  t = await createTestApp({ fileDb: true, config: { rateLimitPerMinute: 1_000_000 } });
  dbFile = join(t.deps.config.dataDir, "parley.db");
});
afterAll(() => t.close());

const sessions = (apiKey: string) => t.request("GET", "/api/external/sessions", { apiKey });

// the memo and the other process's commits are SQLite's (a file in WAL mode); PostgreSQL has no memo
describe.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): API key guard over the snapshot memo", () => {
  test("a key revoked by another process is refused on the next request", async () => {
    const ws = await createWorkspace(t);
    const { key, id } = await apiKeyFor(t, ws);
    for (let i = 0; i < 3; i++) expect((await sessions(key)).status).toBe(200);
    const memo = snapshotMemo(sqliteOf(t.deps.db)!);
    expect(memo.open()).toBe(true);
    expect(memo.size).toBeGreaterThanOrEqual(2); // the key's row and the listing: answered from memory now
    commitFromAnotherProcess(dbFile, "UPDATE api_keys SET revoked_at = ? WHERE id = ?", [Date.now(), id]);
    const r = await sessions(key);
    expect([r.status, r.body.code]).toEqual([401, "UNAUTHORIZED"]);
  });

  test("a session added by another process is listed on the next request; each key sees its own workspace only", async () => {
    const a = await createWorkspace(t);
    const b = await createWorkspace(t);
    const ka = (await apiKeyFor(t, a)).key;
    const kb = (await apiKeyFor(t, b)).key;
    const s1 = await newSession(t, a, "one");
    await newSession(t, b, "theirs");
    expect((await sessions(ka)).body.data.map((s: { id: string }) => s.id)).toEqual([s1]);
    expect((await sessions(ka)).body.data.map((s: { id: string }) => s.id)).toEqual([s1]);
    expect((await sessions(kb)).body.data.map((s: { name: string }) => s.name)).toEqual(["theirs"]);
    const s2 = Bun.randomUUIDv7();
    commitFromAnotherProcess(dbFile, "INSERT INTO chat_sessions (id, workspace_id, name, status, created_at, updated_at) VALUES (?, ?, 'two', 'disconnected', ?, ?)", [s2, a.id, Date.now(), Date.now()]);
    expect((await sessions(ka)).body.data.map((s: { id: string }) => s.id)).toEqual([s1, s2]);
    expect((await sessions(kb)).body.data.map((s: { name: string }) => s.name)).toEqual(["theirs"]);
  });

  test("a plan changed by another process is the plan the key's daily quota is held to on the next request", async () => {
    const ws = await createWorkspace(t, { planId: "pro", status: "active" });
    const { key } = await apiKeyFor(t, ws);
    for (let i = 0; i < 3; i++) expect((await sessions(key)).status).toBe(200);
    const tiny = `tiny-${Bun.randomUUIDv7()}`;
    const limits = JSON.stringify({ sessions: 1, messagesPerMonth: 10, contacts: 10, apiRequestsPerDay: 4, webhooks: 1, teamSeats: 1, campaigns: false });
    commitFromAnotherProcess(dbFile, "INSERT INTO plans (id, name, monthly_paise, annual_paise, limits, updated_at) VALUES (?, 'Tiny', 0, 0, ?, 0)", [tiny, limits]);
    commitFromAnotherProcess(dbFile, "UPDATE workspaces SET plan_id = ? WHERE id = ?", [tiny, ws.id]);
    expect((await sessions(key)).status).toBe(200); // the 4th request of the day
    const r = await sessions(key);
    expect([r.status, r.body.code]).toEqual([403, "LIMIT_EXCEEDED"]);
  });
});

describe.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): JWT guard over the snapshot memo", () => {
  test("a member demoted by another process gets the new role (and loses its permissions) on the next request", async () => {
    const ws = await createWorkspace(t);
    const admin = await ws.member("admin");
    for (let i = 0; i < 3; i++) expect((await t.request("GET", "/api/auth/profile", { token: admin.token })).body.data.role).toBe("admin");
    expect((await t.request("GET", "/api/api-keys", { token: admin.token })).status).toBe(200);
    commitFromAnotherProcess(dbFile, "UPDATE users SET role = 'viewer' WHERE id = ?", [admin.userId]);
    expect((await t.request("GET", "/api/auth/profile", { token: admin.token })).body.data.role).toBe("viewer");
    expect((await t.request("GET", "/api/api-keys", { token: admin.token })).status).toBe(403);
  });

  test("a member removed by another process is refused on the next request", async () => {
    const ws = await createWorkspace(t);
    const agent = await ws.member("agent");
    expect((await t.request("GET", "/api/auth/profile", { token: agent.token })).status).toBe(200);
    commitFromAnotherProcess(dbFile, "DELETE FROM users WHERE id = ?", [agent.userId]);
    expect((await t.request("GET", "/api/auth/profile", { token: agent.token })).status).toBe(401);
  });
});
