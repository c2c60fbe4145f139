import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { testEngine } from "../../helpers/postgres.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { connectSession, createHook, deliveries, emit, until, webhookApp } from "./helpers.ts";

// On PostgreSQL the dispatcher claims a fast webhook's next deliveries before its sending slots
// free up (queued claims), so an answer is followed by the next attempt at once. The cap on
// attempts in flight per webhook still holds, each delivery is sent once, and a queued claim
// that was never sent goes back as it was (not leased, its attempt not counted).
let t: TestApp;
let ws: TestWorkspace;
let rx: Receiver;
let inFlight = 0;
let most = 0;

beforeAll(async () => {
  rx = startReceiver();
  t = await webhookApp();
});
beforeEach(async () => {
  ws = await createWorkspace(t);
  await connectSession(t, ws.id);
  rx.received.length = 0;
  inFlight = most = 0;
});
afterAll(async () => {
  rx.stop();
  await t.close();
});

/** Answers after `hold` resolves, counting the attempts in flight at once. */
function counting(hold: () => Promise<void> = () => Bun.sleep(1)) {
  rx.handler = async () => {
    most = Math.max(most, ++inFlight);
    try {
      await hold();
    } finally {
      inFlight--;
    }
    return new Response("ok");
  };
}

const cap = () => t.deps.config.webhookConcurrencyPerWebhook;

test("a fast webhook's burst: every delivery sent once and recorded, never more than its cap at once", async () => {
  counting();
  const hook = await createHook(t, ws, `${rx.url}/burst`, ["message_received"], "burst");
  const dispatcher = t.services.webhooks;
  dispatcher.start();
  try {
    for (let i = 0; i < 60; i++) await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `burst-${i}` });
    await until(async () => (await deliveries(t, hook.id)).every((d) => d.status === "success"), "every delivery recorded", 15_000);
  } finally {
    await dispatcher.stop(2_000);
  }
  const rows = await deliveries(t, hook.id);
  expect(rows.length).toBe(60);
  expect(rows.map((d) => [d.status, d.attempts, d.lease_until])).toEqual(rows.map(() => ["success", 1, null]));
  expect(rx.received.length).toBe(60); // no delivery twice
  expect(new Set(rx.received.map((r) => r.headers.get("x-webhook-delivery-id"))).size).toBe(60);
  expect(most).toBeLessThanOrEqual(cap());
});

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only (claims queued ahead): claims never sent go back on stop, not leased and their attempt not counted; those in flight are handed back as before",
  async () => {
    counting();
    const hook = await createHook(t, ws, `${rx.url}/queued`, ["message_received"], "queued");
    const dispatcher = t.services.webhooks;
    dispatcher.start();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    try {
      // fast answers first: the webhook gets claims queued ahead
      for (let i = 0; i < 8; i++) await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `warm-${i}` });
      await until(async () => (await deliveries(t, hook.id)).every((d) => d.status === "success"), "the first answers", 10_000);
      counting(() => held);
      for (let i = 0; i < 30; i++) await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `held-${i}` });
      await until(() => inFlight === cap(), "the cap in flight");
      // more claimed than sent: the rest wait in the queue
      await until(async () => (await deliveries(t, hook.id)).filter((d) => d.lease_until !== null).length > cap(), "claims queued ahead");
    } finally {
      await dispatcher.stop(50);
    }
    // read while the receiver still holds the attempts in flight: once it answers, their late
    // outcomes are recorded (fenced by their attempt numbers), at a moment the test cannot know
    let rows: Awaited<ReturnType<typeof deliveries>>;
    try {
      rows = await deliveries(t, hook.id);
    } finally {
      release();
    }
    const open = rows.filter((d) => d.status !== "success");
    expect(open.length).toBe(30);
    expect(open.every((d) => d.lease_until === null)).toBe(true);
    const sent = new Set(rx.received.map((r) => r.headers.get("x-webhook-delivery-id")));
    for (const d of open) expect([d.id, d.attempts]).toEqual([d.id, sent.has(d.id) ? 1 : 0]);
    expect(open.filter((d) => d.attempts === 0).length).toBe(30 - cap());
  },
  30_000,
);

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only: deliveries are claimed, sent and their successes recorded while another transaction holds the store's write lock",
  async () => {
    counting();
    const hook = await createHook(t, ws, `${rx.url}/unlocked`, ["message_received"], "unlocked");
    for (let i = 0; i < 40; i++) await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `unlocked-${i}` });
    const dispatcher = t.services.webhooks;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    // a write transaction (an inbound group, a send) holding the lock the whole time
    const writer = t.deps.db.tx(async () => {
      locked();
      await held;
    });
    await lockTaken;
    dispatcher.start();
    try {
      await until(async () => (await deliveries(t, hook.id)).every((d) => d.status === "success"), "every delivery recorded while the lock is held", 15_000);
    } finally {
      release();
      await writer;
      await dispatcher.stop(2_000);
    }
    const rows = await deliveries(t, hook.id);
    expect(rows.map((d) => [d.status, d.attempts, d.lease_until])).toEqual(rows.map(() => ["success", 1, null]));
    // this webhook's (an earlier test's handed-back deliveries may be sent too)
    const ids = new Set(rows.map((d) => d.id));
    const mine = rx.received.filter((r) => ids.has(r.headers.get("x-webhook-delivery-id")!));
    expect(mine.length).toBe(40);
    expect(new Set(mine.map((r) => r.headers.get("x-webhook-delivery-id"))).size).toBe(40);
  },
  30_000,
);

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only: two nodes' dispatchers on one database, claiming without the write lock, send and record each delivery once",
  async () => {
    counting();
    const hook = await createHook(t, ws, `${rx.url}/two-nodes`, ["message_received"], "two-nodes");
    const other = await webhookApp({ databaseUrl: t.deps.config.databaseUrl });
    const both = [t.services.webhooks, other.services.webhooks];
    try {
      for (const d of both) d.start();
      for (let i = 0; i < 150; i++) await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `two-${i}` });
      await until(async () => (await deliveries(t, hook.id)).every((d) => d.status === "success"), "every delivery recorded", 20_000);
    } finally {
      for (const d of both) await d.stop(2_000);
      await other.close();
    }
    const rows = await deliveries(t, hook.id);
    expect(rows.length).toBe(150);
    expect(rows.map((d) => [d.status, d.attempts, d.lease_until])).toEqual(rows.map(() => ["success", 1, null]));
    const ids = new Set(rows.map((d) => d.id));
    const mine = rx.received.filter((r) => ids.has(r.headers.get("x-webhook-delivery-id")!));
    expect(mine.length).toBe(150); // no delivery sent twice, by either node
    expect(new Set(mine.map((r) => r.headers.get("x-webhook-delivery-id"))).size).toBe(150);
  },
  60_000,
);
