// Which webhooks an event is written for (the outbox's read inside the publishing transaction):
// the workspace's active webhooks subscribed to that event, and no others: not one switched off,
// not one subscribed to other events only, not another workspace's.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectSession, createHook, deliveries, emit, webhookApp } from "./helpers.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
beforeAll(async () => {
  t = await webhookApp();
  a = await createWorkspace(t);
  b = await createWorkspace(t);
  await connectSession(t, a.id);
  await connectSession(t, b.id);
});
afterAll(async () => {
  await t.close();
});

test("an event is written for the workspace's active webhooks subscribed to it, and only those", async () => {
  const url = "http://127.0.0.1:9/hook";
  const sent = await createHook(t, a, url, ["message_received", "message_sent"], "sent");
  const sentOnly = await createHook(t, a, url, ["message_sent"], "sent only");
  const off = await createHook(t, a, url, ["message_sent"], "off");
  const other = await createHook(t, a, url, ["message_read", "campaign_progress"], "other events");
  const foreign = await createHook(t, b, url, ["message_sent"], "another workspace");
  expect((await t.request("PATCH", `/api/webhooks/${off.id}`, { token: a.owner.token, body: { isActive: false } })).status).toBe(200);

  await emit(t, a.id, "message_sent", { sessionId: "s", to: "91999", messageId: "m1" });
  expect((await deliveries(t, sent.id)).map((d) => d.event_type)).toEqual(["message_sent"]);
  expect((await deliveries(t, sentOnly.id)).length).toBe(1);
  expect(await deliveries(t, off.id)).toEqual([]);
  expect(await deliveries(t, other.id)).toEqual([]);
  expect(await deliveries(t, foreign.id)).toEqual([]);

  // an event no webhook of the workspace follows writes nothing; the other workspace's own event is its own
  await emit(t, a.id, "message_delivered", { sessionId: "s", to: "91999", messageId: "m1" });
  await emit(t, b.id, "message_sent", { sessionId: "s", to: "91999", messageId: "m2" });
  expect((await deliveries(t, sent.id)).length).toBe(1);
  expect((await deliveries(t, foreign.id)).length).toBe(1);
  expect(await deliveries(t, other.id)).toEqual([]);
});
