// The dispatcher is woken when delivery rows it may send are committed, and only then: an event
// no webhook takes (the common case of a workspace without webhooks, on every inbound message)
// costs no claim transaction, and rows rolled back wake nothing.
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { WebhookDispatcher } from "../../../src/modules/webhooks/dispatcher.ts";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectSession, createHook, deliveries, emit, webhookApp } from "./helpers.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
const wake = spyOn(WebhookDispatcher.prototype, "wake");
beforeAll(async () => {
  t = await webhookApp();
  a = await createWorkspace(t);
  b = await createWorkspace(t);
  await connectSession(t, a.id);
});
afterAll(async () => {
  wake.mockRestore();
  await t.close();
});

test("an event no webhook takes wakes nothing; rows committed wake the dispatcher after the commit; rows rolled back wake nothing", async () => {
  const hook = await createHook(t, a, "http://127.0.0.1:9/hook", ["message_sent"]);
  wake.mockClear();

  // no webhook of workspace b, and none of a's takes message_delivered
  await emit(t, b.id, "message_sent", { sessionId: "s", to: "91999", messageId: "m0" });
  await emit(t, a.id, "message_delivered", { sessionId: "s", to: "91999", messageId: "m0" });
  expect(wake).toHaveBeenCalledTimes(0);

  // taken: woken once the transaction committed, not before
  let before = -1;
  await t.deps.db.tx(async () => {
    await t.deps.bus.publish(a.id, "message_sent", { sessionId: "s", to: "91999", messageId: "m1" });
    before = wake.mock.calls.length;
  });
  expect(before).toBe(0);
  expect(wake.mock.calls.length).toBeGreaterThanOrEqual(1);
  expect((await deliveries(t, hook.id)).length).toBe(1);

  // rolled back: no row, no wake
  wake.mockClear();
  await expect(
    t.deps.db.tx(async () => {
      await t.deps.bus.publish(a.id, "message_sent", { sessionId: "s", to: "91999", messageId: "m2" });
      throw new Error("roll back");
    }),
  ).rejects.toThrow("roll back");
  expect(wake).toHaveBeenCalledTimes(0);
  expect((await deliveries(t, hook.id)).length).toBe(1);
});
