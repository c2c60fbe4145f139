// The sender's statements that find messages by id (a claim, an outcome, a give-back) read only
// those rows, also on a young table: PostgreSQL plans a table it has never analysed with default
// selectivities, and once took the status or the queue index for `workspace_id = ? AND status =
// 'queued'` instead of the ids' key, reading every queued message of the workspace per statement
// (docs/messages.md, "Plans on a young table"). On PostgreSQL each statement's heap reads are
// counted in its own transaction (pg_stat_xact_user_tables), with generic and with custom plans.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { claimSend, markFailed, markRetry, markSent, sessionsWithQueued } from "../../../src/modules/messages/repo.ts";
import { claimHeadsIfDue, markSentMany, queuedHeads, releaseClaims, type Claim } from "../../../src/modules/messages/claim-repo.ts";
import { reindexAllMessageText } from "../../../src/modules/messages/fts-repo.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

const QUEUED = 3000;
const SESSION = "s-young";
let t: TestApp;
let ws: TestWorkspace;
const id = (n: number) => `m${String(n).padStart(8, "0")}`;

beforeEach(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t, { status: "active" });
  const db = t.deps.db;
  if (db.engine === "postgres") {
    await db.exec("ALTER TABLE messages SET (autovacuum_enabled = false)"); // stays young for the test
    await db.prepare(
      `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
       SELECT 'm' || lpad(g::text, 8, '0'), ?, ?, 'c' || (g % 50), 'outbound', '9198' || lpad((g % 50)::text, 8, '0'), 'text', 'young ' || g, 'queued', g, g
       FROM generate_series(1, ${QUEUED}) g`,
    ).run(ws.id, SESSION);
  } else {
    await db.prepare(
      `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${QUEUED})
       INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
       SELECT 'm' || substr('0000000' || n, -8), ?, ?, 'c' || (n % 50), 'outbound', '9198' || substr('0000000' || (n % 50), -8), 'text', 'young ' || n, 'queued', n, n FROM g`,
    ).run(ws.id, SESSION);
    await reindexAllMessageText(db); // rows inserted by hand: their text into the search index
  }
});
afterEach(() => t.close());

/** The batched claim of `limit` heads as the sender makes it on each engine (PostgreSQL: one statement). */
async function claimHeads(token: string, at: number, limit: number): Promise<Claim[]> {
  const db = t.deps.db;
  if (db.engine === "postgres") return await claimHeadsIfDue(db, ws.id, SESSION, token, at, [], limit);
  const claims: Claim[] = [];
  for (const head of (await queuedHeads(db, ws.id, SESSION)).slice(0, limit)) {
    const tok = `${token}.${head.id}`;
    if (await claimSend(db, ws.id, head.id, tok, null, at)) claims.push({ head, token: tok });
  }
  return claims;
}

/** Runs `fn` in a transaction of its own; on PostgreSQL also returns the heap rows it read from messages. */
async function reads<T>(mode: "generic" | "custom", fn: () => Promise<T>): Promise<{ value: T; read: number }> {
  const db = t.deps.db;
  return await db.tx(async () => {
    if (db.engine !== "postgres") return { value: await fn(), read: 0 };
    await db.exec(`SET LOCAL plan_cache_mode = force_${mode}_plan`);
    const count = async () => {
      const r = (await db.prepare(`SELECT coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0) AS n FROM pg_stat_xact_user_tables WHERE relname = 'messages'`).get()) as { n: number | string };
      return Number(r.n);
    };
    const before = await count();
    const value = await fn();
    return { value, read: (await count()) - before };
  });
}

describe.each(["generic", "custom"] as const)("statements by id on a young table with %p plans", (mode) => {
  test(`the claim, the outcomes and the give-back each read only their own rows among ${QUEUED} queued (PostgreSQL: heap reads counted)`, async () => {
    const db = t.deps.db;
    const at = 10_000;
    // the paced path, one message: claim, then sent
    for (let round = 0; round < 6; round++) {
      // six times: PostgreSQL makes its generic plan of a prepared statement after five runs
      const m = id(2000 + round);
      const claim = await reads(mode, () => claimSend(db, ws.id, m, `tok-${round}`, null, at));
      expect(claim.value).toBe(true);
      expect(claim.read).toBeLessThan(5);
      const sent = await reads(mode, () => markSent(db, ws.id, m, `tok-${round}`, `nid-${round}`, at));
      expect(sent.value).toBe(true);
      expect(sent.read).toBeLessThan(5);
    }
    // a retry and a failure of claimed messages
    for (const [n, outcome] of [[2100, "retry"], [2101, "failed"]] as const) {
      expect((await reads(mode, () => claimSend(db, ws.id, id(n), `tok-${n}`, null, at))).value).toBe(true);
      const r = await reads(mode, async () => {
        if (outcome === "retry") await markRetry(db, ws.id, id(n), `tok-${n}`, at + 1000, { code: "X", message: "x" }, at);
        else expect(await markFailed(db, ws.id, id(n), `tok-${n}`, { code: "X", message: "x" }, at)).toBe(true);
      });
      expect(r.read).toBeLessThan(5);
    }
    // the batched path: heads claimed, some sent together, the rest given back
    for (let round = 0; round < 6; round++) {
      const heads = await reads(mode, () => claimHeads(`batch-${round}`, at, 4));
      expect(heads.value).toHaveLength(4);
      expect(heads.read).toBeLessThan(40); // the four heads, and the head window's own reads
      const [a, b, c, d] = heads.value;
      const sent = await reads(mode, () => markSentMany(db, ws.id, [a!, b!].map((x) => ({ id: x.head.id, token: x.token, nid: `n-${x.head.id}` })), at));
      expect([...sent.value].sort()).toEqual([a!.head.id, b!.head.id].sort());
      expect(sent.read).toBeLessThan(10);
      const back = await reads(mode, () => releaseClaims(db, ws.id, [c!, d!].map((x) => ({ id: x.head.id, token: x.token })), at));
      expect(back.read).toBeLessThan(10);
      // what was given back is queued and free again; what was sent is sent
      const rows = (await db.prepare(`SELECT id, status, sending_token AS token FROM messages WHERE id IN (?, ?, ?, ?) ORDER BY id`).all(a!.head.id, b!.head.id, c!.head.id, d!.head.id)) as { id: string; status: string; token: string | null }[];
      expect(rows.map((r) => [r.status, r.token])).toEqual([["sent", null], ["sent", null], ["queued", null], ["queued", null]]);
      // the next round's claim takes the two given back again first: send them to move on
      const again = await claimHeads(`again-${round}`, at, 2);
      await markSentMany(db, ws.id, again.map((x) => ({ id: x.head.id, token: x.token, nid: `n-${x.head.id}` })), at);
    }
    // the recovery sweep's read walks sessions, not messages
    const sweep = await reads(mode, () => sessionsWithQueued(db));
    expect(sweep.value).toEqual([{ workspaceId: ws.id, sessionId: SESSION }]);
    if (db.engine === "postgres") expect(sweep.read).toBeLessThan(5);
  });
});
