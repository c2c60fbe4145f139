import { afterAll, expect, test } from "bun:test";
import { eventCampaign } from "../../../src/modules/messages/events.ts";
import { eventRecipient } from "../../../src/modules/campaigns/tracking.ts";
import { materialize } from "../../../src/modules/campaigns/audience.ts";
import { createTestApp } from "../../helpers/app.ts";
import { testEngine } from "../../helpers/postgres.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents } from "../messages/helpers.ts";
import { advanceUntil, campaign, campaignBody, newCampaign, seedContacts } from "./helpers.ts";

// A message event says whether its message belongs to a campaign (a hidden property of its data,
// set by a publisher that read the message's row), so the campaigns' bookkeeping reads no
// recipient for the many messages of no campaign, and still moves a campaign's recipients.

const t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { autoReceipts: false } });
afterAll(() => t.close());

test("a one-off send's message_sent says it has no campaign, without a field more in its data; a campaign's names its campaign and moves its recipient", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const events = recordEvents(t);
  const sent = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s.id, to: "919876500001", body: "hello" } });
  expect(sent.status).toBe(202);
  await drain(t);
  const one = events.find((e) => e.event === "message_sent" && e.data.messageId === sent.body.data.id)!;
  expect(eventCampaign(one.data)).toBeNull();
  expect(Object.keys(one.data).sort()).toEqual(["messageId", "sessionId", "to"]);
  expect(JSON.parse(JSON.stringify(one.data))).toEqual({ sessionId: s.id, to: "919876500001", messageId: sent.body.data.id });
  expect(await eventRecipient(t.deps, one)).toBeNull();

  const people = await seedContacts(t, ws, 2);
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id)));
  await materialize(t.deps, ws.id, id);
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 3000);
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: 2, pending: 0, sent: 2 });
  const ours = events.filter((e) => e.event === "message_sent" && e.data.messageId !== sent.body.data.id);
  expect(ours).toHaveLength(2);
  for (const e of ours) {
    expect(eventCampaign(e.data)).toBe(id);
    expect((await eventRecipient(t.deps, e))?.campaignId).toBe(id);
  }
}, 60_000);

test.skipIf(testEngine !== "postgres")("PostgreSQL only (the store counts its statements there; skipped on SQLite): a message of no campaign costs its events no statement in the campaigns' bookkeeping", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const events = recordEvents(t);
  const sent = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s.id, to: "919876500002", body: "hello" } });
  await drain(t);
  const e = events.find((x) => x.event === "message_sent" && x.data.messageId === sent.body.data.id)!;
  const before = t.deps.db.counts!.statements;
  expect(await eventRecipient(t.deps, e)).toBeNull();
  expect(t.deps.db.counts!.statements - before).toBe(0);
  // an event that does not say (a publisher that did not read the row) still looks
  const unsaid = { ...e, data: { ...e.data } };
  expect(eventCampaign(unsaid.data)).toBeUndefined();
  expect(await eventRecipient(t.deps, unsaid)).toBeNull();
  expect(t.deps.db.counts!.statements - before).toBe(1);
});
