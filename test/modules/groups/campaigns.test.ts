import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "../messages/helpers.ts";
import { advanceUntil, campaign, campaignBody, newCampaign } from "../campaigns/helpers.ts";

// A campaign goes to contacts; a group chat is never one of them, so "everyone" never reaches a group.

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t, { planId: "pro", status: "active" });
});
afterAll(() => t.close());

test("a campaign to every contact reaches the people who wrote, never the group they wrote in", async () => {
  const s = await connectedSession(t, ws);
  await t.request("PATCH", `/api/v1/chatapp/${s.id}`, { token: ws.owner.token, body: { settings: { groups: true } } });
  const group = (await t.request("POST", `/api/sim/sessions/${s.id}/groups`, { token: ws.owner.token, body: { name: "Neighbours", participants: ["919822200011", "919822200012"] } })).body.data;
  for (const from of ["919822200011", "919822200012"]) {
    const r = await t.request("POST", `/api/sim/sessions/${s.id}/inbound`, { token: ws.owner.token, body: { groupId: group.id, from, text: "hi all" } });
    expect(r.body.data.messageId).toBeTruthy();
  }
  const person = await t.request("POST", `/api/sim/sessions/${s.id}/inbound`, { token: ws.owner.token, body: { from: "919822200013", text: "hello business" } });
  expect(person.body.data.messageId).toBeTruthy();

  const id = await newCampaign(t, ws, { ...campaignBody([s.id], []), audience: { filter: {} } });
  await advanceUntil(t, 1000, async () => (await campaign(t, ws, id)).status === "completed", 200);
  const sentTo = t.sim.sent.filter((m) => m.sessionId === s.id).map((m) => m.message.to);
  expect(sentTo).toEqual(["919822200013"]);
});
