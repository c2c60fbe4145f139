import { afterAll, beforeAll, expect, test } from "bun:test";
import { sqliteOf } from "../../src/db/sqlite.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { testEngine } from "../helpers/postgres.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test("GET /health answers ok with the version", async () => {
  const r = await t.request("GET", "/health");
  expect(r.status).toBe(200);
  expect(r.body.success).toBe(true);
  expect(r.body.data.status).toBe("ok");
  expect(r.body.data.version).toMatch(/^\d+\.\d+\.\d+/);
});

test("GET /ready checks the database and its migrations", async () => {
  const r = await t.request("GET", "/ready");
  expect(r.status).toBe(200);
  expect(r.body.data).toMatchObject({ status: "ready", database: "ok" });
  expect(r.body.data.migrations).toBeGreaterThan(0);
});

test("GET /ready answers 503 in the envelope when the database is gone", async () => {
  const broken = await createTestApp();
  await broken.deps.db.close();
  const r = await broken.request("GET", "/ready");
  expect(r.status).toBe(503);
  expect(r.body).toMatchObject({ success: false, code: "INTERNAL_ERROR" });
});

// SQLite's own switches (query_only, busy_timeout, a second handle on the file)
test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): GET /ready does a real write: 503 in the envelope while writes fail (query_only), 200 again after", async () => {
  const app = await createTestApp();
  try {
    expect((await app.request("GET", "/ready")).status).toBe(200);
    expect(await app.deps.db.prepare("SELECT count(*) AS n FROM health_probe").get()).toEqual({ n: 1 });
    // reads still work, every write fails, as on a full disk or a read-only file
    const sqlite = sqliteOf(app.deps.db)!;
    sqlite.exec("PRAGMA query_only = ON");
    expect((await app.request("GET", "/health")).status).toBe(200);
    app.clock.advance(5_000); // past the probe's short cache
    const r = await app.request("GET", "/ready");
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ success: false, code: "INTERNAL_ERROR" });
    expect(r.body.message).toContain("refuses writes");
    expect(r.headers.get("x-request-id")).toBe(r.body.requestId);
    sqlite.exec("PRAGMA query_only = OFF");
    expect((await app.request("GET", "/ready")).status).toBe(200);
  } finally {
    app.close();
  }
});

test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): GET /ready answers 503 while another connection holds the write lock past busy_timeout", async () => {
  const { join } = await import("node:path");
  const { Database } = await import("bun:sqlite");
  const app = await createTestApp({ fileDb: true });
  try {
    expect((await app.request("GET", "/ready")).status).toBe(200);
    // another handle on the same file holds the write lock, as a stuck writer would (busy_timeout shortened)
    const other = new Database(join(app.deps.config.dataDir, "parley.db"));
    other.exec("BEGIN IMMEDIATE");
    sqliteOf(app.deps.db)!.exec("PRAGMA busy_timeout = 50");
    app.clock.advance(5_000);
    const r = await app.request("GET", "/ready");
    expect(r.status).toBe(503);
    expect(r.body.code).toBe("INTERNAL_ERROR");
    other.exec("ROLLBACK");
    other.close();
    expect((await app.request("GET", "/ready")).status).toBe(200);
  } finally {
    app.close();
  }
});
