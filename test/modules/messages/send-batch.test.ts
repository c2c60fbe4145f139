import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { SendBatcher, SendGroup } from "../../../src/modules/messages/send-batch.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { TEST_PG_URL } from "../../helpers/postgres.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
beforeEach(async () => {
  t = await createTestApp();
  await upsertPlan(t.deps.db, "m5", { name: "M5", monthlyPaise: 1, annualPaise: 10, limits: { messagesPerMonth: 5 } }, 0);
  ws = await createWorkspace(t, { status: "active", planId: "m5" });
  session = await connectedSession(t, ws);
});
afterEach(() => t.close());

const send = (body: string, key?: string) =>
  t.request("POST", "/api/v1/messages/send", {
    token: ws.owner.token,
    body: { session_id: session.id, to: "919876543210", body },
    headers: key ? { "idempotency-key": key } : undefined,
  });
const stored = async () => ((await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE workspace_id = ?").get(ws.id)) as { n: number }).n;

describe("sends committed together (group commit)", () => {
  test("8 parallel sends at a quota of 5: exactly 5 are accepted and stored, the refused ones roll back alone", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => send(`p${i}`)));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 403 && a.body.code === "LIMIT_EXCEEDED")).toHaveLength(3);
    expect(await stored()).toBe(5);
    const ids = answers.filter((a) => a.status === 202).map((a) => a.body.data.id);
    const rows = await t.deps.db.prepare(`SELECT id FROM messages WHERE workspace_id = ? AND status = 'queued'`).all(ws.id) as { id: string }[];
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
  });

  test("parallel sends with one Idempotency-Key in the same batch: one message, every answer the same", async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => send("same", "k-batch-1")));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    expect(await stored()).toBe(1);
  });
});

describe("what a group writes once", () => {
  const usage = async () => ((await t.deps.db.prepare("SELECT outbound FROM message_usage WHERE workspace_id = ?").get(ws.id)) as { outbound: number } | undefined)?.outbound ?? 0;

  test("the month's usage counts exactly the accepted sends of a group, refused ones not", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => send(`u${i}`)));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(5);
    expect(await usage()).toBe(5);
  });

  const conversations = async () => (await t.deps.db.prepare("SELECT id, last_message_id AS last FROM conversations WHERE workspace_id = ?").all(ws.id)) as { id: string; last: string }[];
  const messageIds = async () => (await t.deps.db.prepare("SELECT id, conversation_id AS c FROM messages WHERE workspace_id = ? ORDER BY id").all(ws.id)) as { id: string; c: string }[];

  test("sends of a group to one number share a conversation whose last message is the newest of them", async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => send(`c${i}`)));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    const convs = await conversations();
    expect(convs).toHaveLength(1);
    const stored = await messageIds();
    expect(stored).toHaveLength(4);
    expect(stored.every((m) => m.c === convs[0]!.id)).toBe(true);
    expect(convs[0]!.last).toBe(stored[3]!.id);
  });

  test("sends of a group to several numbers: each message is in its number's conversation, each conversation's last message the newest of its sends", async () => {
    const to = ["919876500011", "919876500012", "919876500011", "919876500013", "919876500012"];
    const answers = await Promise.all(to.map((n, i) => t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: n, body: `n${i}` } })));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    const convs = (await t.deps.db.prepare("SELECT id, phone, last_message_id AS last FROM conversations WHERE workspace_id = ?").all(ws.id)) as { id: string; phone: string; last: string }[];
    expect(convs.map((c) => c.phone).sort()).toEqual(["919876500011", "919876500012", "919876500013"]);
    const rows = (await t.deps.db.prepare("SELECT id, phone, conversation_id AS c FROM messages WHERE workspace_id = ? ORDER BY id").all(ws.id)) as { id: string; phone: string; c: string }[];
    expect(rows).toHaveLength(5);
    for (const c of convs) {
      const mine = rows.filter((r) => r.phone === c.phone);
      expect(mine.every((r) => r.c === c.id)).toBe(true);
      expect(c.last).toBe(mine.at(-1)!.id);
    }
  });

  test("sends rolled back in the middle of a group (a repeated Idempotency-Key) leave the conversation's last message on a stored one", async () => {
    const answers = await Promise.all([send("x", "k-same"), send("x", "k-same"), send("y"), send("x", "k-same"), send("z")]);
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    const stored = await messageIds();
    expect(stored).toHaveLength(3);
    expect((await conversations())[0]!.last).toBe(stored[2]!.id);
    expect(await usage()).toBe(3);
  });
});

describe("sends without a savepoint", () => {
  const note = async (v: string) => void (await t.deps.db.prepare("INSERT INTO idempotency_keys (workspace_id, key, request_hash, status_code, response, created_at, expires_at) VALUES (?, ?, 'h', 202, '{}', 0, 1)").run(ws.id, v));
  const notes = async () => ((await t.deps.db.prepare("SELECT key FROM idempotency_keys WHERE workspace_id = ? ORDER BY key").all(ws.id)) as { key: string }[]).map((r) => r.key);
  const plain = { savepoint: false };

  test("one refused before it writes fails alone; the others of the group commit", async () => {
    const b = new SendBatcher(t.deps.db);
    const results = await Promise.allSettled([
      b.run(() => note("a"), plain),
      b.run(async () => {
        throw new Error("refused");
      }, plain),
      b.run(() => note("c"), plain),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await notes()).toEqual(["a", "c"]);
  });

  test("a write one of them left for the group's end fails (on PostgreSQL sent with the COMMIT): the group rolls back, then each runs alone and the failure is its own", async () => {
    const b = new SendBatcher(t.deps.db);
    const results = await Promise.allSettled([
      b.run(() => note("a"), plain),
      b.run(async (group) => {
        group.writing();
        group.defer("again", "a", note); // the same key again: refused by its primary key
      }, plain),
      b.run(() => note("c"), plain),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await notes()).toEqual(["a", "c"]);
  });

  test("one failing after it wrote rolls the group back, then each runs alone: nothing of the failed one is stored", async () => {
    const b = new SendBatcher(t.deps.db);
    let runs = 0;
    const results = await Promise.allSettled([
      b.run(() => note("a"), plain),
      b.run(async (group) => {
        group.writing();
        await note("b");
        runs++;
        throw new Error("broke mid-way");
      }, plain),
      b.run(() => note("c"), plain),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(runs).toBe(2); // in the group, then alone
    expect(await notes()).toEqual(["a", "c"]);
  });
});

describe("reads started before a group's first send (prefetch)", () => {
  test("a prefetched read answers the first look at its key, and a send rolled back gives it up: the next look reads again", async () => {
    const group = new SendGroup();
    let reads = 0;
    group.prefetch("k", async () => "early");
    expect(group.prefetched("k")).toBe(true);
    expect(await group.once("k", async () => (reads++, "read"))).toBe("early");
    expect(reads).toBe(0);
    group.drop(); // the send that looked rolled back
    expect(await group.once("k", async () => (reads++, "read"))).toBe("read");
    expect(reads).toBe(1);
    group.prefetch("k", async () => "again"); // known now: nothing started
    expect(group.prefetched("k")).toBe(false);
  });

  test("a prefetched counter starts from the read's answer and counts the group's sends", async () => {
    const group = new SendGroup();
    group.prefetch("n", async () => 7);
    let written = 0;
    expect(await group.counter("n", async () => 0, async (added) => void (written = added))).toBe(7);
    group.count("n");
    group.keep();
    expect(group.countOf("n")).toBe(8);
    await group.writeDeferred();
    expect(written).toBe(1);
  });

  test("a prepare runs for every send of a group inside its transaction, before the first send runs", async () => {
    const b = new SendBatcher(t.deps.db);
    const order: string[] = [];
    const item = (name: string) =>
      b.run(
        async () => {
          order.push(`run ${name}`);
          return name;
        },
        { savepoint: false, prepare: () => void order.push(`prepare ${name} ${t.deps.db.inTx ? "in" : "outside"} tx`) },
      );
    expect(await Promise.all([item("a"), item("b")])).toEqual(["a", "b"]);
    expect(order).toEqual(["prepare a in tx", "prepare b in tx", "run a", "run b"]);
  });
});

describe("sends arriving while a group commits (chained on PostgreSQL)", () => {
  const PG = () => t.deps.db.engine === "postgres";
  const backend = async () => (PG() ? (await t.deps.db.prepare<{ pid: number }>("SELECT pg_backend_pid() AS pid").get())!.pid : 0);

  test("the sends queued while a group ran make the next group; on PostgreSQL it runs on the same connection, behind the COMMIT", async () => {
    const b = new SendBatcher(t.deps.db);
    const first = b.run(async () => {
      await Bun.sleep(30); // the next sends queue meanwhile
      return backend();
    }, { savepoint: false });
    await Bun.sleep(5);
    const later = [b.run(backend, { savepoint: false }), b.run(backend, { savepoint: false })];
    const pid = await first;
    expect(await Promise.all(later)).toEqual([pid, pid]);
  });

  test.if(TEST_PG_URL !== "")("PostgreSQL only: a send arriving while a group waits for the write lock joins that group's transaction", async () => {
    const db = t.deps.db;
    const txid = async () => (await db.prepare<{ id: string }>("SELECT txid_current()::text AS id").get())!.id;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let locked!: () => void;
    const hasLock = new Promise<void>((r) => (locked = r));
    const holder = db.tx(async () => {
      locked();
      await gate;
    });
    await hasLock;
    const b = new SendBatcher(db);
    const a = b.run(txid, { savepoint: false });
    await Bun.sleep(20); // a's group is waiting for the lock
    const late = b.run(txid, { savepoint: false });
    await Bun.sleep(5);
    open();
    await holder;
    expect(await late).toBe(await a);
  });

  test("waves of parallel sends at a quota of 5, each wave arriving while the one before commits: exactly 5 accepted and stored", async () => {
    const waves: ReturnType<typeof send>[][] = [];
    for (let w = 0; w < 4; w++) {
      waves.push(Array.from({ length: 3 }, (_, i) => send(`w${w} ${i}`)));
      await Bun.sleep(1);
    }
    const answers = await Promise.all(waves.flat());
    expect(answers.filter((a) => a.status === 202)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 403 && a.body.code === "LIMIT_EXCEEDED")).toHaveLength(7);
    expect(await stored()).toBe(5);
  });

  test("a group whose COMMIT answers ROLLBACK: its sends run alone, the group chained behind it commits", async () => {
    const note = async (v: string) => void (await t.deps.db.prepare("INSERT INTO idempotency_keys (workspace_id, key, request_hash, status_code, response, created_at, expires_at) VALUES (?, ?, 'h', 202, '{}', 0, 1)").run(ws.id, v));
    const notes = async () => ((await t.deps.db.prepare("SELECT key FROM idempotency_keys WHERE workspace_id = ? ORDER BY key").all(ws.id)) as { key: string }[]).map((r) => r.key);
    const b = new SendBatcher(t.deps.db);
    const plain = { savepoint: false };
    const group = [
      b.run(async () => {
        await note("a");
        await Bun.sleep(30); // "d" queues meanwhile
      }, plain),
      b.run(async (g) => {
        g.writing();
        g.defer("again", "a", note); // refused by the primary key at the group's end
      }, plain),
    ];
    await Bun.sleep(5);
    const chained = b.run(() => note("d"), plain);
    const results = await Promise.allSettled([...group, chained]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await notes()).toEqual(["a", "d"]);
  });
});
