import { afterEach, expect, test } from "bun:test";
import { claimHeadIfDue, nextQueued } from "../../../src/modules/messages/repo.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { testEngine } from "../../helpers/postgres.ts";
import { connectedSession } from "./helpers.ts";

// PostgreSQL's claim of the next head inside a drained message's outcome (repo.ts
// claimHeadIfDue): the head nextQueued reads, claimed in the same statement only when it may go
// now; anything else claims nothing, and the sender's slower path says why.

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string };
afterEach(() => t.close());

const pgOnly = test.skipIf(testEngine !== "postgres");

async function queue(n: number): Promise<string[]> {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", body: `m${i}` } });
    ids.push(r.body.data.id);
  }
  return ids;
}
const set = (sql: string, ...p: (string | number)[]) => t.deps.db.prepare(sql).run(...p);
const claim = (except: string[] = []) => claimHeadIfDue(t.deps.db, ws.id, session.id, Bun.randomUUIDv7(), t.clock.now().getTime(), except);

pgOnly("PostgreSQL only: the head is claimed as nextQueued read it (attempts and token before the claim), then the next one, in order", async () => {
  const ids = await queue(3);
  const before = (await nextQueued(t.deps.db, ws.id, session.id))!;
  const head = (await claim())!;
  expect(head).toEqual(before);
  const row = (await t.deps.db.prepare<{ attempts: number; token: string | null }>('SELECT attempts, sending_token AS token FROM messages WHERE id = ?').get(ids[0]!))!;
  expect(row.attempts).toBe(1);
  expect(row.token).not.toBeNull();
  // the claimed head keeps its place: nothing else is claimed behind it
  expect(await claim()).toBeUndefined();
  await set("UPDATE messages SET status = 'sent', sending_token = NULL WHERE id = ?", ids[0]!);
  expect((await claim())!.id).toBe(ids[1]!);
});

pgOnly("PostgreSQL only: a head waiting for its retry, or in flight here, holds the queue: nothing behind it is claimed", async () => {
  const ids = await queue(2);
  await set("UPDATE messages SET next_attempt_at = ? WHERE id = ?", t.clock.now().getTime() + 60_000, ids[0]!);
  expect(await claim()).toBeUndefined();
  await set("UPDATE messages SET next_attempt_at = NULL WHERE id = ?", ids[0]!);
  expect(await claim([ids[0]!])).toBeUndefined();
  expect((await claim([Bun.randomUUIDv7()]))!.id).toBe(ids[0]!);
  const attempts = await t.deps.db.prepare<{ attempts: number }>("SELECT attempts FROM messages WHERE id = ?").all(ids[1]!);
  expect(attempts).toEqual([{ attempts: 0 }]);
});

pgOnly("PostgreSQL only: a paused campaign's queued message is passed over, as nextQueued does", async () => {
  const ids = await queue(2);
  const campaignId = Bun.randomUUIDv7();
  const now = t.clock.now().getTime();
  await set(
    `INSERT INTO campaigns (id, workspace_id, name, status, session_ids, message, audience, pacing, created_at, updated_at)
     VALUES (?, ?, 'c', 'paused', '[]', '{}', '{}', '{}', ?, ?)`,
    campaignId,
    ws.id,
    now,
    now,
  );
  await set("UPDATE messages SET campaign_id = ? WHERE id = ?", campaignId, ids[0]!);
  expect((await nextQueued(t.deps.db, ws.id, session.id))!.id).toBe(ids[1]!);
  expect((await claim())!.id).toBe(ids[1]!);
});
