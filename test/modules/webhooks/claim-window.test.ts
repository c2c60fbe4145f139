import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { dueWindow } from "../../../src/modules/webhooks/store.ts";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver } from "../../net/receiver.ts";
import { connectSession, createHook, emit, until, webhookApp } from "./helpers.ts";

// A claim reads a window of the due order, then goes webhook by webhook when everything in the
// window is in flight or belongs to webhooks at their cap: the backlog of one slow receiver is
// not read through on every claim. Both ways must hand out the same deliveries in the same order.
let t: TestApp;
let ws: TestWorkspace;
const LEASE = 60_000;
const WINDOW = 4;

beforeAll(async () => {
  t = await webhookApp();
});
beforeEach(async () => {
  ws = await createWorkspace(t);
  await connectSession(t, ws.id);
  await t.deps.db.exec("DELETE FROM webhook_deliveries");
});
afterAll(async () => {
  await t.close();
});

/** Three webhooks, `events` deliveries each; `a`'s are due first, then `c`'s, then `b`'s (offsets from now, ms). */
async function backlog(events: number, due: { a: number; b: number; c: number }) {
  const a = await createHook(t, ws, "http://127.0.0.1:9/a", ["message_received"], "a");
  const b = await createHook(t, ws, "http://127.0.0.1:9/b", ["message_received"], "b");
  const c = await createHook(t, ws, "http://127.0.0.1:9/c", ["message_received"], "c");
  for (let i = 0; i < events; i++) (await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `w-${i}` }));
  const now = t.clock.now().getTime();
  // ids are UUIDv7: their order is the order of creation
  const rows = (await t.deps.db.prepare("SELECT id AS r, webhook_id AS w FROM webhook_deliveries ORDER BY id").all()) as { r: string; w: string }[];
  const offset = new Map([[a.id, due.a], [b.id, due.b], [c.id, due.c]]);
  for (const [i, row] of rows.entries()) await t.deps.db.prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?").run(now + offset.get(row.w)! + i, row.r);
  return { a: a.id, b: b.id, c: c.id, now };
}

/** A claim at `now` with the test's window, the webhooks `busy` at their cap. */
async function claim(now: number, busy: string[]) {
  const store = t.deps.deliveries;
  return store.claimDue(now, LEASE, busy, await store.dueBound(now, WINDOW));
}

/** Delivery ids of the given webhooks, open and unleased, in due order: what claims must hand out. */
async function dueOrder(webhookIds: string[], now: number): Promise<string[]> {
  const rows = (await t.deps.db
    .prepare("SELECT id, webhook_id AS w FROM webhook_deliveries WHERE status IN ('pending', 'retrying') AND next_attempt_at <= ? ORDER BY next_attempt_at")
    .all(now)) as { id: string; w: string }[];
  return rows.filter((r) => webhookIds.includes(r.w)).map((r) => r.id);
}

test("with a backlog of a webhook at its cap filling the window, claims go webhook by webhook and keep the due order", async () => {
  const h = await backlog(10, { a: -100_000, b: -1_000, c: -50_000 });
  const expected = await dueOrder([h.b, h.c], h.now);
  expect(expected.length).toBe(20);

  const got: string[] = [];
  for (;;) {
    const d = await claim(h.now, [h.a]);
    if (!d) break;
    expect(d.attempts).toBe(1);
    got.push(d.id);
  }
  expect(got).toEqual(expected);
  // the webhook at its cap kept every one of its deliveries
  const a = (await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND attempts = 0 AND lease_until IS NULL").get(h.a)) as { n: number };
  expect(a.n).toBe(10);
  // with nobody at the cap, the window holds the first due delivery: the backlogged webhook's
  expect((await claim(h.now, []))?.webhookId).toBe(h.a);
});

test("going webhook by webhook, a claim skips switched-off webhooks and leased deliveries", async () => {
  const h = await backlog(6, { a: -100_000, b: -1_000, c: -50_000 });
  await t.deps.db.prepare("UPDATE webhooks SET is_active = 0 WHERE id = ?").run(h.c);
  const [first, second] = await dueOrder([h.b], h.now);
  // b's first delivery is in flight (leased by another claim)
  await t.deps.db.prepare("UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?").run(h.now + LEASE, first!);
  expect((await claim(h.now, [h.a]))?.id).toBe(second!);
  // a lease that ran out makes the delivery due again
  expect((await claim(h.now + LEASE + 1, [h.a]))?.id).toBe(first!);
});

test("a backlog all due at the same moment (a webhook switched back on) is passed over too, and ties are claimed in full", async () => {
  const h = await backlog(8, { a: -100_000, b: -1_000, c: -50_000 });
  const store = t.deps.deliveries;
  // every delivery due at the same millisecond: the window's edge is a tie of all of them
  await t.deps.db.prepare("UPDATE webhook_deliveries SET next_attempt_at = ?").run(h.now - 10);
  const others = (await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id <> ?").get(h.a)) as { n: number };
  const got = new Set<string>();
  for (let d = await claim(h.now, [h.a]); d; d = await claim(h.now, [h.a])) {
    expect(d.webhookId).not.toBe(h.a);
    got.add(d.id);
  }
  expect(got.size).toBe(others.n);
  expect(await store.nextDue([h.a], h.now, WINDOW)).toBeNull();
  expect(await store.nextDue([], h.now, WINDOW)).toBe(h.now - 10);
});

test("the window is the concurrency twice over, at least 64", () => {
  expect(dueWindow(4)).toBe(64);
  expect(dueWindow(32)).toBe(64);
  expect(dueWindow(100)).toBe(200);
});

test("the next due time passes over a backlog at its cap in the same way, and is null when nothing else waits", async () => {
  const h = await backlog(10, { a: -100_000, b: 9_000, c: 5_000 });
  const store = t.deps.deliveries;
  const cFirst = (await t.deps.db.prepare("SELECT min(next_attempt_at) AS t FROM webhook_deliveries WHERE webhook_id = ?").get(h.c)) as { t: number };
  // webhook by webhook (a's backlog fills the window) and through the window (a not at its cap) agree with the data
  expect(await store.nextDue([h.a], h.now, WINDOW)).toBe(cFirst.t);
  expect(await store.nextDue([], h.now, WINDOW)).toBe(h.now - 100_000);
  await t.deps.db.prepare("UPDATE webhook_deliveries SET status = 'success', next_attempt_at = NULL WHERE webhook_id <> ?").run(h.a);
  expect(await store.nextDue([h.a], h.now, WINDOW)).toBeNull();
  expect(await claim(h.now, [h.a])).toBeNull();
});

test("a running dispatcher delivers a healthy webhook's event while a hanging receiver's backlog fills the whole window", async () => {
  // one delivery in flight per webhook: the hanging webhook is at its cap from its first attempt
  const app = await webhookApp({ webhookConcurrency: 4, webhookConcurrencyPerWebhook: 1 });
  const rx = startReceiver();
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  rx.handler = async (req) => {
    if (req.path === "/hanging") await released;
    return new Response("ok");
  };
  try {
    const w = await createWorkspace(app);
    await connectSession(app, w.id);
    const hanging = await createHook(app, w, `${rx.url}/hanging`, ["message_received"], "hanging");
    const healthy = await createHook(app, w, `${rx.url}/healthy`, ["message_sent"], "healthy");
    const backlog = dueWindow(4) + 10;
    for (let i = 0; i < backlog; i++) {
      await emit(app, w.id, "message_received", { sessionId: "s", from: "91", messageId: `h-${i}` });
      app.clock.advance(1); // each due a millisecond after the one before
    }
    app.services.webhooks.start();
    await until(() => rx.received.some((r) => r.path === "/hanging"), "the hanging receiver's first request");
    // the healthy webhook's delivery is due after all of the backlog
    app.clock.advance(1);
    await emit(app, w.id, "message_sent", { sessionId: "s", to: "91", messageId: "ok-1" });
    await until(() => rx.received.some((r) => r.path === "/healthy"), "the healthy webhook's delivery");
    const row = (await app.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND attempts = 0").get(hanging.id)) as { n: number };
    expect(row.n).toBe(backlog - 1); // the hanging webhook never had more than its one attempt
    await until(async () => ((await app.deps.db.prepare("SELECT status FROM webhook_deliveries WHERE webhook_id = ?").get(healthy.id)) as { status: string }).status === "success", "the outcome recorded");
  } finally {
    release();
    await app.services.webhooks.stop(1000);
    rx.stop();
    await app.close();
  }
});
