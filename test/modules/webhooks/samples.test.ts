import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AppEvent, WebhookEvent } from "../../../src/events/bus.ts";
import { sampleData } from "../../../src/modules/webhooks/samples.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { drain, waitFor } from "../messages/helpers.ts";
import { linkSession, newSession } from "../sessions/helpers.ts";
import { campaignBody, newCampaign, seedContacts } from "../campaigns/helpers.ts";

// A test delivery must look like the real thing: the sample of each event carries exactly the
// keys the modules publish. The real events come from real flows on the sim network.

let t: TestApp;
let ws: TestWorkspace;
const events: AppEvent[] = [];
beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, sendMaxAttempts: 1 } });
  ws = await createWorkspace(t);
  t.deps.bus.subscribe((e) => events.push(e));
  const id = await newSession(t, ws);
  await linkSession(t, ws, id, "919811100077");
  // received
  const networkId = t.sim.inbound(id, { from: "919822200077", pushName: "Asha", type: "text", text: "hi" });
  await waitFor(() => events.some((e) => e.event === "message_received"), "message_received");
  expect(networkId).toBeString();
  // sent, delivered, read
  const send = (body: string) => t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: id, to: "919876543210", body } });
  expect((await send("ok")).status).toBe(202);
  await drain(t);
  const accepted = t.sim.sent.at(-1)!.networkMessageId;
  t.sim.receipt(id, accepted, "delivered");
  t.sim.receipt(id, accepted, "read");
  await waitFor(() => events.some((e) => e.event === "message_read"), "message_read");
  // failed
  t.sim.failNextSends(id, 1, "send_failed");
  expect((await send("fails")).status).toBe(202);
  await drain(t);
  // campaign_progress (announced when the campaign starts)
  const people = await seedContacts(t, ws, 1);
  await newCampaign(t, ws, campaignBody([id], people.map((p) => p.id)));
  await waitFor(() => events.some((e) => e.event === "campaign_progress"), "campaign_progress");
  // disconnected
  expect((await t.request("POST", `/api/v1/chatapp/${id}/disconnect`, { token: ws.owner.token })).status).toBe(200);
});
afterAll(() => t.close());

const NAMES = ["message_received", "message_sent", "message_delivered", "message_read", "message_failed", "session_connected", "session_disconnected", "campaign_progress"] as const;

test.each(NAMES)("the %s sample carries exactly the real event's keys", (name: WebhookEvent) => {
  const real = events.find((e) => e.event === name);
  expect(real).toBeDefined();
  expect(Object.keys(sampleData(name, new Date())).sort()).toEqual(Object.keys(real!.data).sort());
});
