// A full disk while background work runs: the server stays up, reports itself unready at once,
// and the work resumes once writes go through again. SQLite's own limits stand in for the disk:
// `max_page_count` refuses every new page with SQLITE_FULL ("database or disk is full"), and
// `query_only` refuses every write. Those are SQLite's pragmas: the tests that use them run on
// SQLite whatever engine the suite runs on (the write health itself is engine-blind).
import { afterEach, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { until } from "../helpers/crash.ts";
import { createWorkspace } from "../helpers/fixtures.ts";
import type { Database } from "bun:sqlite";
import { sqliteOf } from "../../src/db/sqlite.ts";
import { isWriteFailure } from "../../src/ops/write-health.ts";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.deps.jobs.stop(100);
  await t?.close();
  t = undefined;
});

/** The test app's bun:sqlite connection (the app is pinned to SQLite). */
const sqliteOfApp = (app: TestApp): Database => sqliteOf(app.deps.db)!;

/** Makes the database as full as it is now: the next write that needs a new page fails with SQLITE_FULL. */
function fillDisk(app: TestApp): void {
  const { page_count } = sqliteOfApp(app).query("PRAGMA page_count").get() as { page_count: number };
  sqliteOfApp(app).exec(`PRAGMA max_page_count = ${page_count}`);
}
function freeDisk(app: TestApp): void {
  sqliteOfApp(app).exec("PRAGMA max_page_count = 1073741823");
}

test("a job's heartbeat that fails in its timer does not end the process; the job is recorded once writes return (SQLite only: its pragmas stand in for the disk)", async () => {
  t = await createTestApp({ engine: "sqlite" });
  const app = t;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let running = false;
  // a short lease: its heartbeat (a third of it) ticks while the job runs
  app.deps.jobs.register({ kind: "test.slow", leaseMs: 150, run: async () => void ((running = true), await gate) });
  const id = await app.deps.jobs.enqueue("test.slow", {});
  app.deps.jobs.start();
  await until("the job runs", () => running);
  sqliteOfApp(app).exec("PRAGMA query_only = ON");
  // before the fix the heartbeat's error escaped its setInterval: an uncaught error, the end of a server
  await until("the heartbeat reports its failed write", () => app.deps.writeHealth.failing);
  expect(app.deps.writeHealth.failing!.what).toBe("job bookkeeping");
  const r = await app.request("GET", "/ready");
  expect(r.status).toBe(503);
  expect(r.body).toMatchObject({ success: false, code: "INTERNAL_ERROR" });
  sqliteOfApp(app).exec("PRAGMA query_only = OFF");
  release();
  await until("the job is done", async () => (await app.deps.db.prepare<{ status: string }>("SELECT status FROM jobs WHERE id = ?").get(id))?.status === "done");
  expect(app.deps.writeHealth.failing).toBeNull();
  expect((await app.request("GET", "/ready")).status).toBe(200);
});

test("/ready answers 503 as soon as a background write fails, though its own small probe still fits and passed a moment ago (SQLite only: its pragmas stand in for the disk)", async () => {
  t = await createTestApp({ engine: "sqlite" });
  const app = t;
  await app.deps.db.prepare("CREATE TABLE scratch (b BLOB)").run();
  app.deps.jobs.register({ kind: "test.big", maxAttempts: 1, run: async () => void (await app.deps.db.prepare("INSERT INTO scratch VALUES (randomblob(100000))").run()) });
  expect((await app.request("GET", "/ready")).status).toBe(200);
  fillDisk(app);
  const id = await app.deps.jobs.enqueue("test.big", {});
  await app.deps.jobs.runDue();
  // the probe's row exists (an update in place fits) and the manual clock has not moved: only the job's failure can say 503
  const r = await app.request("GET", "/ready");
  expect(r.status).toBe(503);
  expect(r.body.message).toContain("refuses writes");
  // one try of one allowed, but the disk's fault: not failed for good
  const row = await app.deps.db.prepare<{ status: string; last_error: string }>("SELECT status, last_error FROM jobs WHERE id = ?").get(id);
  expect(row).toEqual({ status: "pending", last_error: "database or disk is full" });
  freeDisk(app);
  app.clock.advance(app.deps.writeHealth.backoffMs("job test.big"));
  expect(await app.deps.jobs.runDue()).toBe(1);
  expect((await app.deps.db.prepare<{ status: string }>("SELECT status FROM jobs WHERE id = ?").get(id))!.status).toBe("done");
  expect(await app.deps.db.prepare("SELECT count(*) AS n FROM scratch").get()).toEqual({ n: 1 });
  expect((await app.request("GET", "/ready")).status).toBe(200);
});

test("a request whose write the disk refuses answers 500 and makes the server unready until a write goes through (SQLite only: its pragmas stand in for the disk)", async () => {
  t = await createTestApp({ engine: "sqlite" });
  const app = t;
  const ws = await createWorkspace(app);
  const attributes = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, "y".repeat(500)]));
  expect((await app.request("GET", "/ready")).status).toBe(200);
  fillDisk(app);
  let failed = 0;
  for (let i = 0; i < 50 && !failed; i++) {
    const r = await app.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: `91980000${String(i).padStart(4, "0")}`, attributes } });
    if (r.status === 500) failed++;
    else expect(r.status).toBe(201);
  }
  expect(failed).toBe(1);
  expect((await app.request("GET", "/ready")).status).toBe(503);
  freeDisk(app);
  await app.deps.jobs.enqueue("nothing.registered", {});
  await app.deps.jobs.runDue(); // a background write that goes through clears it
  expect((await app.request("GET", "/ready")).status).toBe(200);
});

test("write failures are told from other errors by their codes", () => {
  const sqlite = (code: string) => Object.assign(new Error(code), { code });
  for (const c of ["SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_READONLY", "SQLITE_BUSY", "ENOSPC", "EDQUOT", "EROFS"]) expect(isWriteFailure(sqlite(c))).toBe(true);
  for (const c of ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_ERROR", "ENOENT"]) expect(isWriteFailure(sqlite(c))).toBe(false);
  // PostgreSQL's SQLSTATEs: disk full, I/O error, read-only transaction; not a unique violation or a syntax error
  for (const c of ["53100", "58030", "25006"]) expect(isWriteFailure(sqlite(c))).toBe(true);
  for (const c of ["23505", "42601"]) expect(isWriteFailure(sqlite(c))).toBe(false);
  // a query builder's wrapper: its cause tells
  expect(isWriteFailure(Object.assign(new Error("query failed"), { cause: sqlite("SQLITE_FULL") }))).toBe(true);
  expect(isWriteFailure(new Error("boom"))).toBe(false);
  expect(isWriteFailure(null)).toBe(false);
});

test("a contacts import whose writes meet a full disk is not failed, however many tries; it completes once space returns (SQLite only: its pragmas stand in for the disk)", async () => {
  t = await createTestApp({ engine: "sqlite" });
  const app = t;
  const ws = await createWorkspace(app);
  const csv = "phone,name,note\n" + Array.from({ length: 300 }, (_, i) => `9176${String(i).padStart(8, "0")},Person ${i},${"n".repeat(400)}`).join("\n") + "\n";
  const form = new FormData();
  form.append("file", new File([csv], "c.csv", { type: "text/csv" }));
  const r = await app.request("POST", "/api/v1/contacts/import", { token: ws.owner.token, body: form });
  expect(r.status).toBe(202);
  fillDisk(app);
  for (let i = 0; i < 8; i++) {
    await app.deps.jobs.runDue();
    app.clock.advance(10_000);
  }
  const during = (await app.request("GET", `/api/v1/contacts/imports/${r.body.data.id}`, { token: ws.owner.token })).body.data;
  expect(during.status).not.toBe("failed");
  expect((await app.request("GET", "/ready")).status).toBe(503);
  freeDisk(app);
  await app.deps.jobs.runDue();
  const done = (await app.request("GET", `/api/v1/contacts/imports/${r.body.data.id}`, { token: ws.owner.token })).body.data;
  expect(done).toMatchObject({ status: "completed", total: 300, created: 300, rejected: 0 });
});
