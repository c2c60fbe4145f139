import { afterAll, beforeAll, expect, test } from "bun:test";
import { leaseMs, sendAttempt } from "../../../src/modules/webhooks/deliver.ts";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { connectSession, createHook, emit, webhookApp } from "./helpers.ts";

// The in-process version of the crash property: workers that claim deliveries and die
// (before sending, or after sending but before recording) leave leases that expire; the
// next worker sends again. Every delivery reaches the receiver at least once.
let t: TestApp;
let ws: TestWorkspace;
let rx: Receiver;

beforeAll(async () => {
  rx = startReceiver();
  // the receiver sometimes fails, so retries mix with crash recovery
  rx.handler = () => (Math.random() < 0.2 ? new Response("flaky", { status: 500 }) : new Response("ok"));
  t = await webhookApp({ webhookRetrySchedule: "0,1,2,5,10,20,30,60,120,300" });
  ws = await createWorkspace(t);
  await connectSession(t, ws.id);
});
afterAll(async () => {
  rx.stop();
  await t.close();
});

test("deliveries claimed by killed workers are sent again after their lease; none is lost", async () => {
  await createHook(t, ws, `${rx.url}/one`, ["message_received"]);
  await createHook(t, ws, `${rx.url}/two`, ["message_received", "message_sent"]);
  const store = t.deps.deliveries;
  const N = 60;
  let published = 0;
  let expected = 0;
  let killed = 0;
  let sentThenKilled = 0;
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < N / 6; i++) {
      // message_received goes to both webhooks, message_sent to one
      await emit(t, ws.id, i % 3 ? "message_received" : "message_sent", { sessionId: "s", from: "91", messageId: `m${published++}` });
      expected += i % 3 ? 2 : 1;
    }
    // a live worker gets some work done
    if (round % 2) await t.services.webhooks.runDue();
    // a worker claims a random share of what is due and is killed: half before sending, half after
    const now = t.clock.now().getTime();
    const take = 1 + Math.floor(Math.random() * 8);
    for (let k = 0; k < take; k++) {
      const d = await store.claimDue(now, leaseMs(t.deps), []);
      if (!d) break;
      killed++;
      if (Math.random() < 0.5) {
        await sendAttempt(t.deps, d, now);
        sentThenKilled++;
      }
    }
    // nobody can take those until the lease runs out
    t.clock.advance(Math.random() < 0.5 ? 1000 : leaseMs(t.deps) + 1);
  }
  // the restarted server: leases expired, retries due
  for (let i = 0; i < 30; i++) {
    t.clock.advance(leaseMs(t.deps) + 1);
    await t.services.webhooks.runDue();
    const open = (await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'retrying')").get()) as { n: number };
    if (open.n === 0) break;
  }

  const rows = (await t.deps.db.prepare("SELECT id, status FROM webhook_deliveries WHERE is_test = 0").all()) as { id: string; status: string }[];
  expect(rows.length).toBe(expected);
  expect(rows.filter((r) => r.status !== "success")).toEqual([]);
  const seen = new Map<string, number>();
  for (const r of rx.received) {
    const id = r.headers.get("x-webhook-delivery-id")!;
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const missing = rows.filter((r) => !seen.has(r.id));
  expect(missing).toEqual([]);
  const duplicates = [...seen.values()].reduce((a, n) => a + n - 1, 0);
  console.log(`in-process crash test: ${rows.length} deliveries, ${killed} claims killed (${sentThenKilled} after sending), ${rx.received.length} requests received, ${duplicates} duplicates (retries and re-sends after kills)`);
  expect(seen.size).toBe(rows.length);
});
