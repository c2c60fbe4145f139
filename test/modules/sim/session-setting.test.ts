// The sim inbound route reads the session's groups setting per request; on PostgreSQL through the
// store's read cache (src/modules/sim/session-setting.ts). A change must be seen by the next
// request when made through this node, and within the notification's latency when made by
// another process on the same database; a foreign workspace's session is never answered.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openPostgresStore } from "../../../src/db/postgres.ts";
import { readCache } from "../../../src/db/read-cache.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { testEngine } from "../../helpers/postgres.ts";
import { eventually, linkSession, newSession } from "../sessions/helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp();
  await t.start(); // PostgreSQL: the event listener is what lets the read cache keep rows
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const inbound = (sessionId: string, body: Record<string, unknown>, token = ws.owner.token) => t.request("POST", `/api/sim/sessions/${sessionId}/inbound`, { token, body });
const setGroups = (id: string, groups: boolean) => t.request("PATCH", `/api/v1/chatapp/${id}`, { token: ws.owner.token, body: { settings: { groups } } });

async function groupOf(sessionId: string): Promise<string> {
  const r = await t.request("POST", `/api/sim/sessions/${sessionId}/groups`, { token: ws.owner.token, body: { name: "Club", participants: ["919822200011", "919822200012"] } });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

test("the groups setting changed through the API holds for the next inbound message; a deleted session answers 404 at once", async () => {
  const id = await newSession(t, ws);
  await linkSession(t, ws, id, "919812300101");
  const groupId = await groupOf(id);
  const said = (text: string) => inbound(id, { groupId, from: "919822200011", text });
  for (let i = 0; i < 3; i++) expect((await said(`off ${i}`)).body.data.messageId).toBeNull();
  expect((await setGroups(id, true)).status).toBe(200);
  expect((await said("on")).body.data.messageId).toMatch(/^[0-9a-f-]{36}$/);
  expect((await setGroups(id, false)).status).toBe(200);
  expect((await said("off again")).body.data.messageId).toBeNull();
  expect((await t.request("DELETE", `/api/v1/chatapp/${id}`, { token: ws.owner.token })).status).toBe(200);
  const gone = await inbound(id, { from: "919800000001", text: "after delete" });
  expect([gone.status, gone.body.code]).toEqual([404, "NOT_FOUND"]);
});

test("another workspace's session answers 404, before and after its owner used it", async () => {
  const id = await newSession(t, ws);
  await linkSession(t, ws, id, "919812300102");
  for (let i = 0; i < 2; i++) expect((await inbound(id, { from: "919800000002", text: `mine ${i}` })).status).toBe(200);
  const r = await inbound(id, { from: "919800000002", text: "theirs" }, other.owner.token);
  expect([r.status, r.body.code]).toEqual([404, "NOT_FOUND"]);
  const stored = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE session_id = ? AND body = 'theirs'").get(id);
  expect(stored?.n).toBe(0);
});

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only (its read cache): a groups setting changed and a session deleted by another process are seen within the notification's latency",
  async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id, "919812300103");
    const groupId = await groupOf(id);
    const said = async (text: string) => {
      const r = await inbound(id, { groupId, from: "919822200012", text });
      if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
      return r.body.data.messageId;
    };
    for (let i = 0; i < 3; i++) expect(await said(`kept ${i}`)).toBeNull();
    expect(readCache(t.deps.db).size).toBeGreaterThan(0); // answered from memory now
    const elsewhere = openPostgresStore(t.deps.config.databaseUrl!).db;
    try {
      await elsewhere.prepare("UPDATE chat_sessions SET groups = 1 WHERE id = ? AND workspace_id = ?").run(id, ws.id);
      await eventually(async () => expect(await said("seen on")).toMatch(/^[0-9a-f-]{36}$/), 2_000);
      await elsewhere.prepare("DELETE FROM chat_sessions WHERE id = ? AND workspace_id = ?").run(id, ws.id);
      // the announcement drops every kept row (a request sent before it arrives races the delete,
      // as one sent just before the delete would: it waits for a message the session never stores)
      await eventually(() => expect(readCache(t.deps.db).size).toBe(0), 2_000);
      const r = await inbound(id, { from: "919800000003", text: "deleted elsewhere" });
      expect([r.status, r.body.code]).toEqual([404, "NOT_FOUND"]);
    } finally {
      await elsewhere.close();
    }
  },
  30_000,
);
