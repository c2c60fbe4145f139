// Large audiences: materialised in windows and slices (the event loop gets turns between them),
// with the same outcome as one pass: every matching contact a recipient exactly once. The start
// answers with the first batch; the campaign's run job writes the rest. Cancel
// skips the recipients without a message in batches; a cancel or a materialisation cut short
// (a crash) is finished by the sweep or the next run from its cursor.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { materialize, MATERIALIZE_BATCH } from "../../../src/modules/campaigns/audience.ts";
import { largestSlice } from "../../../src/yield.ts";
import { SKIP_BATCH, skipUnsent } from "../../../src/modules/campaigns/held.ts";
import { insertStoredContact } from "../../../src/modules/contacts/store.ts";
import { WINDOW } from "../../../src/modules/segments/filter.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "../messages/helpers.ts";
import { campaign, campaignBody, checkProgress, freshOwner, newCampaign, progressEvents } from "./helpers.ts";

const N = WINDOW * 2 + 500; // three windows of the opted-in index
let t: TestApp;
let ws: TestWorkspace;
let session: string;
/** contact id -> phone of the contacts tagged `all`, opted in */
const expected = new Map<string, string>();

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  session = (await connectedSession(t, ws)).id;
  const at = t.clock.now().getTime();
  await t.deps.db.tx(async () => {
    for (let i = 0; i < N; i++) {
      const id = Bun.randomUUIDv7();
      const phone = `9178${String(i).padStart(8, "0")}`;
      const optedOut = i % 10 === 3;
      const tags = i % 5 === 0 ? ["other"] : ["all"];
      await insertStoredContact(t.deps.db, ws.id, { id, phone, name: null, pushName: null, tags, attributes: {}, optedOut, lastInboundAt: null, at });
      if (!optedOut && tags[0] === "all") expected.set(id, phone);
    }
  });
}, 120_000);
afterAll(() => t.close());

type Recipient = { contactId: string; phone: string; status: string };
const recipientsOf = (id: string) =>
  t.deps.db.prepare<Recipient>('SELECT contact_id AS "contactId", phone, status FROM campaign_recipients WHERE campaign_id = ? ORDER BY contact_id').all(id);

/** Creates and starts a campaign, then writes the rest of its audience as its run job does. */
async function started(body: unknown): Promise<string> {
  const id = await newCampaign(t, ws, body);
  await materialize(t.deps, ws.id, id);
  return id;
}

test(`start over ${N.toLocaleString("en")} contacts (a filter audience over several windows): the answer comes with the first batch, the run job writes the rest, each matching contact a recipient exactly once`, async () => {
  const events = progressEvents(t);
  const id = await newCampaign(t, ws, { ...campaignBody([session], []), audience: { filter: { tagsAny: ["all"] } } }, false);
  const answer = await t.request("POST", `/api/v1/campaigns/${id}/start`, { token: ws.owner.token });
  expect(answer.status).toBe(200);
  expect(answer.body.data.status).toBe("running");
  // one window of the index at most: the rest is the run job's
  const first = answer.body.data.stats;
  expect(first.total).toBeGreaterThan(0);
  expect(first.total).toBeLessThan(expected.size);
  expect(first).toMatchObject({ pending: first.total, skipped: 0 });
  expect((await recipientsOf(id)).length).toBe(first.total);
  // the run job (what the server's job worker runs at once): the whole audience, then the first sends
  await t.deps.jobs.runDue();
  const rows = await recipientsOf(id);
  expect(rows.length).toBe(expected.size);
  expect(new Set(rows.map((r) => r.contactId)).size).toBe(expected.size);
  for (const r of rows) expect(expected.get(r.contactId)).toBe(r.phone);
  expect((await campaign(t, ws, id)).stats.total).toBe(expected.size);
  const mine = events.filter((e) => e.data.campaignId === id).map((e) => e.data);
  expect(checkProgress(mine)).toEqual([]);
  const row = await t.deps.db.prepare<{ cursor: string | null; at: number | null }>('SELECT materialize_cursor AS cursor, materialized_at AS at FROM campaigns WHERE id = ?').get(id);
  expect(row).toEqual({ cursor: null, at: expect.any(Number) });
  await t.request("POST", `/api/v1/campaigns/${id}/cancel`, { token: ws.owner.token });
}, 120_000);

test("a scheduled campaign's audience is written by its run job before its time; it stays scheduled", async () => {
  const at = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
  const id = await newCampaign(t, ws, { ...campaignBody([session], []), audience: { filter: { tagsAny: ["all"] } }, schedule: { at } });
  expect((await campaign(t, ws, id)).status).toBe("scheduled");
  await t.deps.jobs.runDue();
  const c = await campaign(t, ws, id);
  expect(c.status).toBe("scheduled");
  expect(c.stats).toMatchObject({ total: expected.size, pending: expected.size, sent: 0 });
  await t.request("POST", `/api/v1/campaigns/${id}/cancel`, { token: await freshOwner(t, ws) });
}, 120_000);

test("cancel while the audience is being written: the run job stops where it got, the counts add up and every recipient is skipped", async () => {
  const id = await newCampaign(t, ws, { ...campaignBody([session], []), audience: { filter: { tagsAny: ["all"] } } });
  const r = await t.request("POST", `/api/v1/campaigns/${id}/cancel`, { token: await freshOwner(t, ws) });
  expect(r.body.data.status).toBe("cancelled");
  await t.deps.jobs.runDue();
  await materialize(t.deps, ws.id, id);
  const c = await campaign(t, ws, id);
  expect(c.stats.total).toBeLessThan(expected.size);
  expect(c.stats).toMatchObject({ pending: 0, skipped: c.stats.total });
  expect((await recipientsOf(id)).length).toBe(c.stats.total);
}, 120_000);

test("a materialisation cut short goes on from its cursor with the filter of its start: a contact created later does not join, none is written twice", async () => {
  const id = await started( { ...campaignBody([session], []), audience: { filter: { tagsAny: ["all"] } } });
  const all = await recipientsOf(id);
  // as if the process died after the batches up to the middle contact
  const cut = all[Math.floor(all.length / 2)]!.contactId;
  const dropped = all.filter((r) => r.contactId > cut).length;
  await t.deps.db.tx(async () => {
    await t.deps.db.prepare("DELETE FROM campaign_recipients WHERE campaign_id = ? AND contact_id > ?").run(id, cut);
    await t.deps.db
      .prepare("UPDATE campaigns SET materialize_cursor = ?, materialized_at = NULL, total = total - ?, pending = pending - ? WHERE id = ?")
      .run(cut, dropped, dropped, id);
  });
  // meanwhile: a new matching contact
  t.clock.advance(1000);
  const later = t.clock.now().getTime();
  const newcomer = Bun.randomUUIDv7();
  await t.deps.db.tx(() => insertStoredContact(t.deps.db, ws.id, { id: newcomer, phone: "917899999999", name: null, pushName: null, tags: ["all"], attributes: {}, optedOut: false, lastInboundAt: null, at: later }));
  await materialize(t.deps, ws.id, id);
  const again = await recipientsOf(id);
  expect(again.map((r) => r.contactId)).toEqual(all.map((r) => r.contactId));
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: expected.size, pending: expected.size });
  await t.request("POST", `/api/v1/campaigns/${id}/cancel`, { token: ws.owner.token });
  expected.set(newcomer, "917899999999"); // in the audience of campaigns started from now on
}, 120_000);

test(`cancel with ${N.toLocaleString("en")} recipients waiting: every one without a message skipped (cancelled) in batches, the answer and the announcements add up`, async () => {
  const id = await started({ ...campaignBody([session], []), audience: { filter: { tagsAny: ["all"] } } });
  const events = progressEvents(t, id);
  const r = await t.request("POST", `/api/v1/campaigns/${id}/cancel`, { token: await freshOwner(t, ws) });
  expect(r.status).toBe(200);
  expect(r.body.data.status).toBe("cancelled");
  expect(r.body.data.stats).toMatchObject({ total: expected.size, pending: 0, skipped: expected.size });
  const rows = await recipientsOf(id);
  expect(rows.every((x) => x.status === "skipped")).toBe(true);
  const reasons = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM campaign_recipients WHERE campaign_id = ? AND skipped_reason = 'cancelled'").get(id);
  expect(Number(reasons!.n)).toBe(expected.size);
  expect(expected.size).toBeGreaterThan(SKIP_BATCH * 2);
  expect(checkProgress(events.map((e) => e.data))).toEqual([]);
}, 120_000);

test("a cancel cut short between its batches (a crash) is finished by the campaigns sweep", async () => {
  const id = await started({ ...campaignBody([session], []), audience: { filter: { tagsAny: ["all"] } } });
  // the status change committed, no recipient skipped yet: what a kill right after it leaves
  await t.deps.db.prepare("UPDATE campaigns SET status = 'cancelled', completed_at = ? WHERE id = ?").run(t.clock.now().getTime(), id);
  const sweep = t.services.periodic.find((p) => p.name === "campaigns.sweep")!;
  await sweep.run();
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: expected.size, pending: 0, skipped: expected.size });
  const left = await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM campaign_recipients WHERE campaign_id = ? AND status = 'pending'").get(id);
  expect(Number(left!.n)).toBe(0);
  // another sweep finds nothing more to do
  await sweep.run();
  expect((await campaign(t, ws, id)).stats).toMatchObject({ pending: 0, skipped: expected.size });
}, 120_000);

test("a cancel that stops skipping at its answer's time leaves the rest to the campaign's run job", async () => {
  const id = await started({ ...campaignBody([session], []), audience: { filter: { tagsAny: ["all"] } } });
  // what the cancel request does when its time to answer has come after one transaction
  await t.deps.db.prepare("UPDATE campaigns SET status = 'cancelled', completed_at = ? WHERE id = ?").run(t.clock.now().getTime(), id);
  await t.deps.jobs.enqueue("campaigns.run", { workspaceId: ws.id, campaignId: id }, { dedupeKey: `campaigns.run:${id}` });
  expect(await skipUnsent(t.deps, ws.id, id, { untilMs: performance.now() })).toBeLessThanOrEqual(SKIP_BATCH);
  expect((await campaign(t, ws, id)).stats.pending).toBeGreaterThan(0);
  await t.deps.jobs.runDue();
  expect((await campaign(t, ws, id)).stats).toMatchObject({ total: expected.size, pending: 0, skipped: expected.size });
}, 120_000);

test("a list of contact ids longer than one batch: each id once, opted-out ones skipped, repeats recorded as duplicates", async () => {
  const ids = [...expected.keys()].slice(0, 2500);
  const optedOut = (await t.deps.db.prepare<{ id: string }>("SELECT id FROM contacts WHERE workspace_id = ? AND opted_out = 1 LIMIT 5").all(ws.id)).map((r) => r.id);
  const list = [...ids, ...optedOut, ids[0]!, ids[1]!];
  const id = await started(campaignBody([session], list));
  const stats = (await campaign(t, ws, id)).stats;
  expect(stats).toMatchObject({ total: list.length, pending: ids.length, skipped: optedOut.length + 2 });
  const rows = await recipientsOf(id);
  expect(new Set(rows.filter((r) => r.status === "pending").map((r) => r.contactId)).size).toBe(ids.length);
  await t.request("POST", `/api/v1/campaigns/${id}/cancel`, { token: await freshOwner(t, ws) });
}, 120_000);

test("no transaction of materialising or cancelling did more than its bound (counted, not timed)", () => {
  // the tests above materialised and cancelled thousands of recipients in this process
  expect(largestSlice("campaigns.materialize")).toBeGreaterThan(0);
  expect(largestSlice("campaigns.materialize")).toBeLessThanOrEqual(MATERIALIZE_BATCH);
  expect(largestSlice("campaigns.cancel")).toBeGreaterThan(0);
  expect(largestSlice("campaigns.cancel")).toBeLessThanOrEqual(SKIP_BATCH);
});
