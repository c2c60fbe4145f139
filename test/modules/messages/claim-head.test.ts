import { afterEach, expect, test } from "bun:test";
import { nextQueued } from "../../../src/modules/messages/repo.ts";
import { claimHeadsIfDue } from "../../../src/modules/messages/claim-repo.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { testEngine } from "../../helpers/postgres.ts";
import { connectedSession } from "./helpers.ts";

// PostgreSQL's claim of the next heads inside a drained batch's outcomes (claim-repo.ts
// claimHeadsIfDue): the heads nextQueued reads one after another, claimed in the same statement
// as far as they may go now; a head that may not stops the batch, and the sender's slower path
// says why.

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
const claimMany = async (limit: number, except: string[] = []) => claimHeadsIfDue(t.deps.db, ws.id, session.id, Bun.randomUUIDv7(), t.clock.now().getTime(), except, limit);
const claim = async (except: string[] = []) => (await claimMany(1, except))[0]?.head;
const rowOf = async (id: string) =>
  (await t.deps.db.prepare<{ attempts: number; token: string | null; status: string }>("SELECT attempts, sending_token AS token, status FROM messages WHERE id = ?").get(id))!;

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

pgOnly("PostgreSQL only: a batch claims the first heads in queue order, each with its own token and one more attempt; the rest stay queued and unclaimed", async () => {
  const ids = await queue(5);
  const claims = await claimMany(3);
  expect(claims.map((c) => c.head.id)).toEqual(ids.slice(0, 3));
  expect(new Set(claims.map((c) => c.token)).size).toBe(3);
  for (const c of claims) {
    expect(c.head.attempts).toBe(0);
    expect(c.head.sendingToken).toBeNull();
    expect(await rowOf(c.head.id)).toEqual({ attempts: 1, token: c.token, status: "queued" });
  }
  for (const id of ids.slice(3)) expect(await rowOf(id)).toEqual({ attempts: 0, token: null, status: "queued" });
  // the claimed heads hold the queue: nothing behind them is claimed
  expect(await claimMany(5)).toEqual([]);
});

pgOnly("PostgreSQL only: a batch stops before a head waiting for its retry, one an interrupted attempt holds, or one in flight here", async () => {
  const ids = await queue(5);
  await set("UPDATE messages SET next_attempt_at = ? WHERE id = ?", t.clock.now().getTime() + 60_000, ids[2]!);
  expect((await claimMany(5)).map((c) => c.head.id)).toEqual(ids.slice(0, 2));
  await set("UPDATE messages SET status = 'sent', sending_token = NULL WHERE id IN (?, ?)", ids[0]!, ids[1]!);
  await set("UPDATE messages SET next_attempt_at = NULL, sending_token = 'interrupted' WHERE id = ?", ids[2]!);
  expect(await claimMany(5)).toEqual([]);
  await set("UPDATE messages SET sending_token = NULL WHERE id = ?", ids[2]!);
  expect(await claimMany(5, [ids[3]!])).toHaveLength(1);
  expect(await rowOf(ids[4]!)).toEqual({ attempts: 0, token: null, status: "queued" });
});

pgOnly("PostgreSQL only: a batch claims nothing of another workspace's session", async () => {
  await queue(2);
  const other = await createWorkspace(t);
  expect(await claimHeadsIfDue(t.deps.db, other.id, session.id, Bun.randomUUIDv7(), t.clock.now().getTime(), [], 5)).toEqual([]);
});
