// The guard's two paths: synchronous reads on SQLite's idle connection (through the snapshot
// memo), and reads through the store while a transaction holds that connection (and always on
// PostgreSQL). Both must answer the same.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";
import { guardApp } from "../modules/apikeys/guard-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ fileDb: true });
});
afterAll(() => t.close());

test("a transaction in progress: JWT and API-key callers are read through the store and answered once it commits", async () => {
  const ws = await createWorkspace(t);
  const call = guardApp(t);
  const key = (await t.request("POST", "/api/api-keys", { token: ws.owner.token, body: { name: "k" } })).body.data.key as string;
  let release!: () => void;
  const held = t.deps.db.tx(() => new Promise<void>((r) => (release = r)));
  const calls = Promise.all([
    t.request("GET", "/api/auth/profile", { token: ws.owner.token }),
    call("GET", "/api/external/probe", { apiKey: key }),
    call("GET", "/api/probe", { token: ws.owner.token }),
    call("GET", "/api/external/probe", { apiKey: key + "x" }),
  ]);
  await Bun.sleep(20);
  release();
  await held;
  const [profile, byKey, byJwt, badKey] = await calls;
  expect([profile.status, profile.body.data.tenantId]).toEqual([200, ws.id]);
  expect([byKey.status, byKey.body.data.kind, byKey.body.data.workspaceId]).toEqual([200, "apiKey", ws.id]);
  expect([byJwt.status, byJwt.body.data.kind, byJwt.body.data.role]).toEqual([200, "user", "owner"]);
  expect([badKey.status, badKey.body.code]).toEqual([401, "UNAUTHORIZED"]);
  // the idle connection again: the same answers
  for (let i = 0; i < 3; i++) {
    expect((await call("GET", "/api/external/probe", { apiKey: key })).body.data.workspaceId).toBe(ws.id);
    expect((await call("GET", "/api/probe", { token: ws.owner.token })).body.data.userId).toBe(ws.owner.userId);
  }
});
