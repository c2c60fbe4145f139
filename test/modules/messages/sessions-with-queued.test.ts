// The sweep's list of sessions with queued messages (sessionsWithQueued) walks the queue index from
// one session to the next on both engines instead of reading every queued message (a DISTINCT
// took 6 ms per 100,000 queued on SQLite, on the event loop, every 30 s). It must answer exactly
// what the DISTINCT answered: every (workspace, session) with a queued message, none without.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SESSIONS_WITH_QUEUED_SQLITE, sessionsWithQueued } from "../../../src/modules/messages/repo.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";

let t: TestApp;
let seq = 0;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function add(workspaceId: string, sessionId: string, status: string, n = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    await t.deps.db
      .prepare(
        `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
         VALUES (?, ?, ?, 'c', 'outbound', '919800000001', 'text', NULL, ?, ?, ?)`,
      )
      .run(`q${String(++seq).padStart(6, "0")}`, workspaceId, sessionId, status, seq, seq);
  }
}

const distinct = async () =>
  (await t.deps.db.prepare<{ workspaceId: string; sessionId: string }>(`SELECT DISTINCT workspace_id AS "workspaceId", session_id AS "sessionId" FROM messages WHERE status = 'queued'`).all())
    .map((r) => `${r.workspaceId}/${r.sessionId}`)
    .sort();
const swept = async () => (await sessionsWithQueued(t.deps.db)).map((r) => `${r.workspaceId}/${r.sessionId}`).sort();

test("no queued message: no session", async () => {
  expect(await swept()).toEqual([]);
});

test("every session with a queued message, across workspaces, once each; sessions with only other messages left out", async () => {
  const a = (await createWorkspace(t)).id;
  const b = (await createWorkspace(t)).id;
  const c = (await createWorkspace(t)).id;
  await add(a, "s1", "queued", 40);
  await add(a, "s2", "sent", 5); // nothing queued
  await add(a, "s3", "queued", 1);
  await add(a, "s3", "failed", 3);
  await add(b, "s0", "queued", 2);
  await add(b, "s9", "queued", 30);
  await add(c, "s5", "delivered", 4); // a workspace with nothing queued
  await add(a, "s20", "queued", 3); // sorts between s2 and s3
  const expected = [`${a}/s1`, `${a}/s20`, `${a}/s3`, `${b}/s0`, `${b}/s9`].sort();
  expect(await distinct()).toEqual(expected);
  expect(await swept()).toEqual(expected);
  // the last queued message of a session sent: the session drops out
  await t.deps.db.prepare("UPDATE messages SET status = 'sent' WHERE workspace_id = ? AND session_id = 's3' AND status = 'queued'").run(a);
  expect(await swept()).toEqual(expected.filter((k) => k !== `${a}/s3`));
  expect(await swept()).toEqual(await distinct());
});

test("SQLite: each step is a search of the queue index, not a scan", async () => {
  if (t.deps.db.engine !== "sqlite") return;
  const plan = (await t.deps.db.prepare<{ detail: string }>(`EXPLAIN QUERY PLAN ${SESSIONS_WITH_QUEUED_SQLITE}`).all()).map((r) => r.detail);
  expect(plan).toContain("SEARCH messages USING COVERING INDEX messages_queue_idx (workspace_id=? AND session_id>?)");
  expect(plan).toContain("SEARCH messages USING COVERING INDEX messages_queue_idx (workspace_id>?)");
  // the one scan is the first entry's (LIMIT 1)
  expect(plan.filter((d) => d.startsWith("SCAN messages"))).toEqual(["SCAN messages USING COVERING INDEX messages_queue_idx"]);
});
