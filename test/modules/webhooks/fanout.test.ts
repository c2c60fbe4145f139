import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { connectSession, createHook, deliveries, emit, until, webhookApp } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let slow: Receiver;
let fast: Receiver;

beforeAll(async () => {
  slow = startReceiver();
  fast = startReceiver();
  t = await webhookApp({ webhookConcurrency: 3, webhookConcurrencyPerWebhook: 2, webhookTimeoutMs: 20_000 });
  ws = await createWorkspace(t);
  await connectSession(t, ws.id);
});
afterAll(async () => {
  slow.stop();
  fast.stop();
  await t.close();
});

test("a receiver that hangs holds at most its own slots; the others get every event meanwhile", async () => {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  slow.handler = async () => {
    await gate;
    return new Response("finally");
  };
  const a = await createHook(t, ws, `${slow.url}/a`, ["message_sent"]);
  const b = await createHook(t, ws, `${fast.url}/b`, ["message_sent"]);
  const c = await createHook(t, ws, `${fast.url}/c`, ["message_sent"]);
  for (let i = 0; i < 6; i++) (await emit(t, ws.id, "message_sent", { sessionId: "s", to: "91", messageId: `m${i}` }));

  const all = t.services.webhooks.runDue();
  // with head-of-line blocking this would never happen while the slow receiver hangs
  await until(() => fast.received.length === 12, "the fast receivers to get all 12 deliveries");
  // an attempt keeps its slot until its outcome is committed (group commit): wait for the records
  const recorded = async (id: string) => (await deliveries(t, id)).every((d) => d.status === "success");
  await until(async () => (await recorded(b.id)) && (await recorded(c.id)), "the fast deliveries to be recorded");
  expect(slow.received.length).toBe(2); // its per-webhook cap
  expect(t.services.webhooks.inFlight).toBe(2);
  open();
  await all;
  expect(slow.received.length).toBe(6);
  expect((await deliveries(t, a.id)).every((d) => d.status === "success")).toBe(true);
});

test("the running dispatcher wakes on commit and sends without being asked", async () => {
  fast.received.length = 0;
  const hook = await createHook(t, ws, `${fast.url}/live`, ["message_read"]);
  t.services.webhooks.start();
  try {
    await emit(t, ws.id, "message_read", { sessionId: "s", messageId: "m", readAt: t.clock.now().toISOString() });
    await until(async () => (await deliveries(t, hook.id))[0]?.status === "success", "the live delivery");
    expect(fast.received.map((r) => r.path)).toEqual(["/live"]);
  } finally {
    await t.services.webhooks.stop(1000);
  }
});
