// The engine's hot statements walk indexes, whatever the size of the campaign or the history.
import { afterAll, expect, test } from "bun:test";
import { sqliteOf } from "../../../src/db/sqlite.ts";
import { createTestApp } from "../../helpers/app.ts";
import { testEngine } from "../../helpers/postgres.ts";

const t = await createTestApp();
afterAll(() => t.close());

const plan = (sql: string) =>
  (sqliteOf(t.deps.db)!.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(sql.match(/\?/g) ?? []).map(() => "x")) as { detail: string }[]).map((r) => r.detail).join(" | ");

// the plans checked are SQLite's (EXPLAIN QUERY PLAN); PostgreSQL plans its own way
test.skipIf(testEngine === "postgres").each([
  ["a message event finds its recipient", "SELECT id FROM campaign_recipients WHERE message_id = ?", "campaign_recipients_message_idx"],
  ["the next recipient to give a message", "SELECT id FROM campaign_recipients WHERE campaign_id = ? AND status = 'pending' AND message_id IS NULL ORDER BY id LIMIT 1", "campaign_recipients_status_idx"],
  ["recipients by status", "SELECT * FROM campaign_recipients WHERE campaign_id = ? AND status = ? ORDER BY id LIMIT 20", "campaign_recipients_status_idx"],
  ["cancel skips the waiting", "UPDATE campaign_recipients SET status = 'skipped' WHERE campaign_id = ? AND status = 'pending' AND message_id IS NULL", "campaign_recipients_status_idx"],
  [
    "a session's window of queued campaign messages",
    "SELECT count(*) AS n FROM messages INDEXED BY messages_queue_idx WHERE workspace_id = ? AND session_id = ? AND status = 'queued' AND campaign_id IS NOT NULL",
    "messages_queue_idx",
  ],
  ["a session's sends today", "SELECT count FROM campaign_send_days WHERE session_id = ? AND day = ?", "sqlite_autoindex_campaign_send_days_1"],
])("SQLite only (its own machinery; skipped on PostgreSQL): %s", (_what, sql, index) => {
  const p = plan(sql);
  expect(p).toContain(`USING INDEX ${index}`);
  expect(p).not.toMatch(/SCAN|TEMP B-TREE/);
});
