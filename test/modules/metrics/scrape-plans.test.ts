import { afterAll, beforeAll, expect, test } from "bun:test";
import { sqliteOf } from "../../../src/db/sqlite.ts";
import { SCRAPE_SQL } from "../../../src/modules/metrics/registry.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { testEngine } from "../../helpers/postgres.ts";

// A scrape must not cost time that grows with the history: the work-waiting counts go through
// the indexes that hold only the waiting rows (the queue, the due deliveries, the due jobs).
// SQLite's plans (PostgreSQL's planner picks the partial indexes by itself).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const plan = (sql: string) =>
  (sqliteOf(t.deps.db)!.query(`EXPLAIN QUERY PLAN ${sql}`).all(Date.now()) as { detail: string }[]).map((r) => r.detail).join(" | ");

test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): queued messages are counted through the queue's partial index, not a scan of every message", () => {
  expect(plan(SCRAPE_SQL.queuedMessages)).toContain("messages_queue_idx");
});

test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): due deliveries and jobs go through their due indexes", () => {
  expect(plan(SCRAPE_SQL.dueDeliveries)).toMatch(/webhook_deliveries_(webhook_)?due_idx/);
  expect(plan(SCRAPE_SQL.pendingJobs)).toContain("jobs_due_idx");
  expect(plan(SCRAPE_SQL.oldestDueJob)).toContain("jobs_due_idx");
});
