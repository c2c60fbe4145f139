import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteOf } from "../../../src/db/sqlite.ts";
import { materialize } from "../../../src/modules/campaigns/audience.ts";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "../messages/helpers.ts";
import { advanceUntil, campaign, campaignBody, checkProgress, newCampaign, progressEvents, seedContacts, simSent } from "./helpers.ts";

const dataDir = mkdtempSync(join(tmpdir(), "parley-campaign-"));
const t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, webhookAllowHttp: true, webhookAllowPrivate: true }, sim: { dataDir, autoReceipts: false } });
afterAll(() => t.close());

test("1,000 contacts over two sessions: every opted-in recipient gets exactly one message with its variables, opted-out none", async () => {
  const ws = await createWorkspace(t);
  const a = await connectedSession(t, ws);
  const b = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, 1000, (i) => ({ optedOut: i % 10 === 0, name: i % 7 === 0 ? null : `Person ${i}` }));
  const events = progressEvents(t);
  const id = await newCampaign(t, ws, campaignBody([a.id, b.id], people.map((p) => p.id)));
  // the start answers with the first batch; the rest is the run job's (run here at once)
  await materialize(t.deps, ws.id, id);
  const started = await campaign(t, ws, id);
  expect(started.stats.total).toBe(1000);
  expect(started.stats.skipped).toBe(100);
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 3000);
  const done = await campaign(t, ws, id);
  expect(done.stats).toEqual({ total: 1000, pending: 0, sent: 900, delivered: 0, read: 0, failed: 0, skipped: 100 });

  const sent = simSent(dataDir);
  const perPhone = new Map<string, number>();
  for (const s of sent) perPhone.set(s.to, (perPhone.get(s.to) ?? 0) + 1);
  people.forEach((p, i) => {
    const expected = i % 10 === 0 ? 0 : 1;
    expect(`${p.phone}:${perPhone.get(p.phone) ?? 0}`).toBe(`${p.phone}:${expected}`);
  });
  const byPhone = new Map(sent.map((s) => [s.to, s.text]));
  expect(byPhone.get(people[1]!.phone)).toBe(`Hello Person 1, your number is ${people[1]!.phone}`);
  expect(byPhone.get(people[7]!.phone)).toBe(`Hello friend, your number is ${people[7]!.phone}`);
  // both sessions took turns
  const bySession = new Map<string, number>();
  for (const s of sent) bySession.set(s.sessionId, (bySession.get(s.sessionId) ?? 0) + 1);
  expect(Math.abs((bySession.get(a.id) ?? 0) - (bySession.get(b.id) ?? 0))).toBeLessThanOrEqual(2);

  const ours = events.filter((e) => e.data.campaignId === id);
  const data = ours.map((e) => e.data);
  expect(data.length).toBeGreaterThan(2);
  // between status changes, at most one announcement every 5 s
  for (let i = 1; i < ours.length; i++) {
    if (ours[i]!.data.status !== ours[i - 1]!.data.status) continue;
    expect(Date.parse(ours[i]!.timestamp) - Date.parse(ours[i - 1]!.timestamp)).toBeGreaterThanOrEqual(5000);
  }
  expect(checkProgress(data)).toEqual([]);
  expect(data.at(-1)!.status).toBe("completed");
}, 120_000);

test("segment and filter audiences: the opted-in matching contacts, frozen at start, with their attributes filled in", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const phones: string[] = [];
  for (let i = 0; i < 12; i++) {
    const phone = `9176${String(5_000_000 + i).padStart(8, "0")}`;
    phones.push(phone);
    const body: Record<string, unknown> = { phone, name: `Buyer ${i}`, tags: i % 2 ? ["vip"] : ["lead"] };
    if (i % 3 === 0) body.attributes = { city: "Delhi" };
    const r = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body });
    expect(r.status).toBe(201);
    if (i === 11) await t.request("PATCH", `/api/v1/contacts/${r.body.data.id}`, { token: ws.owner.token, body: { optedOut: true } });
  }
  const seg = await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body: { name: "vips", filter: { tagsAny: ["vip"] } } });
  expect(seg.status).toBe(201);
  const message = { type: "text", body: "{{name}} from {{attributes.city|Pune}}" };
  const bySegment = await newCampaign(t, ws, { ...campaignBody([s.id], []), audience: { segmentId: seg.body.data.id }, message }, false);
  const byFilter = await newCampaign(t, ws, { ...campaignBody([s.id], []), audience: { filter: { tagsAll: ["lead"], attributes: { city: "Delhi" } } }, message });
  expect((await t.request("POST", `/api/v1/campaigns/${bySegment}/start`, { token: ws.owner.token })).status).toBe(200);
  // a later change of the segment does not change the frozen audience
  await t.request("PATCH", `/api/v1/segments/${seg.body.data.id}`, { token: ws.owner.token, body: { filter: { tagsAny: ["lead"] } } });
  expect((await campaign(t, ws, bySegment)).stats.total).toBe(5); // vip: 1,3,5,7,9 (11 opted out)
  expect((await campaign(t, ws, byFilter)).stats.total).toBe(2); // lead with city Delhi: 0, 6
  await advanceUntil(t, 100, async () => (await campaign(t, ws, bySegment)).status === "completed" && (await campaign(t, ws, byFilter)).status === "completed", 500);
  const texts = new Map(simSent(dataDir).filter((x) => phones.includes(x.to)).map((x) => [x.to, x.text]));
  expect(texts.size).toBe(7);
  expect(texts.get(phones[3]!)).toBe("Buyer 3 from Delhi");
  expect(texts.get(phones[1]!)).toBe("Buyer 1 from Pune");
  expect(texts.get(phones[6]!)).toBe("Buyer 6 from Delhi");
  expect(texts.has(phones[11]!)).toBe(false);
  // a campaign whose segment was deleted before it started cannot start
  const seg2 = await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body: { name: "gone", filter: { tagsAny: ["vip"] } } });
  const orphan = await newCampaign(t, ws, { ...campaignBody([s.id], []), audience: { segmentId: seg2.body.data.id } }, false);
  await t.request("DELETE", `/api/v1/segments/${seg2.body.data.id}`, { token: ws.owner.token });
  const start = await t.request("POST", `/api/v1/campaigns/${orphan}/start`, { token: ws.owner.token });
  expect([start.status, start.body.code]).toEqual([409, "CONFLICT"]);
  expect((await campaign(t, ws, orphan)).status).toBe("draft");
  // another workspace's segment is not found
  const other = await createWorkspace(t);
  const foreign = await t.request("POST", "/api/v1/campaigns", { token: other.owner.token, body: { ...campaignBody([], []), sessionIds: [(await connectedSession(t, other)).id], audience: { segmentId: seg.body.data.id } } });
  expect(foreign.status).toBe(404);
}, 60_000);

test("campaign_progress reaches webhooks subscribed to it (an outbox row per announcement)", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const hook = await t.request("POST", "/api/webhooks", { token: ws.owner.token, body: { name: "progress", url: "http://127.0.0.1:9/hook", events: ["campaign.progress"] } });
  expect(hook.status).toBe(201);
  const people = await seedContacts(t, ws, 3);
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id)));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 200);
  const rows = await t.deps.db.prepare("SELECT payload FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id").all(hook.body.data.id) as { payload: string }[];
  const data = rows.map((r) => JSON.parse(r.payload)).filter((p) => p.event === "campaign_progress").map((p) => p.data);
  expect(data[0]).toMatchObject({ campaignId: id, status: "running", total: 3 });
  expect(data.at(-1)).toEqual({ campaignId: id, status: "completed", pausedReason: null, total: 3, pending: 0, sent: 3, delivered: 0, read: 0, failed: 0, skipped: 0 });
  expect(checkProgress(data)).toEqual([]);
});

test("an image campaign sends the uploaded media to everyone, with the caption's variables filled", async () => {
  const { png } = await import("../media/samples.ts");
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const form = new FormData();
  form.append("file", new File([png()], "offer.png"));
  const media = await t.request("POST", "/api/v1/media", { token: ws.owner.token, body: form });
  expect(media.status).toBe(201);
  const people = await seedContacts(t, ws, 3);
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id), { message: { type: "image", body: "For {{name}}", mediaId: media.body.data.id } }));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 200);
  const sent = simSent(dataDir).filter((x) => people.some((p) => p.phone === x.to)) as { to: string; type?: string; text?: string; mimeType?: string }[];
  expect(sent.map((x) => [x.type, x.mimeType])).toEqual([["image", "image/png"], ["image", "image/png"], ["image", "image/png"]]);
  expect(sent.map((x) => x.text).sort()).toEqual(["For Person 0", "For Person 1", "For Person 2"]);
  // a media id of another workspace is not found
  const other = await createWorkspace(t);
  const foreign = await t.request("POST", "/api/v1/campaigns", {
    token: other.owner.token,
    body: campaignBody([(await connectedSession(t, other)).id], [Bun.randomUUIDv7()], { message: { type: "image", mediaId: media.body.data.id } }),
  });
  expect(foreign.status).toBe(404);
});

test("a mediaUrl is fetched once, at start, and that copy goes to every recipient", async () => {
  const { png } = await import("../media/samples.ts");
  let fetches = 0;
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => (fetches++, new Response(png(), { headers: { "content-type": "image/png" } })) });
  try {
    const ws = await createWorkspace(t);
    const s = await connectedSession(t, ws);
    const people = await seedContacts(t, ws, 3);
    const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id), { message: { type: "image", body: "Hi {{name}}", mediaUrl: `http://127.0.0.1:${server.port}/offer.png` } }));
    await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 200);
    expect(fetches).toBe(1);
    const mediaIds = await t.deps.db.prepare("SELECT DISTINCT media_id AS m FROM messages WHERE campaign_id = ?").all(id) as { m: string }[];
    expect(mediaIds.length).toBe(1);
    expect(mediaIds[0]!.m).toBeString();
    expect(simSent(dataDir).filter((x) => people.some((p) => p.phone === x.to)).length).toBe(3);
  } finally {
    server.stop(true);
  }
});

test("the messages API lists a campaign's messages (campaignId filter, on an index)", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, 4);
  const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id)));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 200);
  await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s.id, to: "919898989898", body: "one-off" } });
  const listed = await t.request("GET", `/api/v1/messages?campaignId=${id}&limit=10`, { token: ws.owner.token });
  expect(listed.status).toBe(200);
  expect(listed.body.data.length).toBe(4);
  expect(listed.body.data.every((m: { campaignId: string }) => m.campaignId === id)).toBe(true);
  const { messagePageQuery } = await import("../../../src/modules/messages/repo.ts");
  const q = messagePageQuery(t.deps.db, ws.id, { campaignId: id }, { limit: 10 }).toSQL();
  // the plan checked is SQLite's (EXPLAIN QUERY PLAN); PostgreSQL plans its own way
  const sqlite = sqliteOf(t.deps.db);
  if (sqlite) {
    const plan = (sqlite.query(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.params as string[])) as { detail: string }[]).map((r) => r.detail).join(" | ");
    expect(plan).toContain("messages_ws_campaign_idx");
  }
  expect((await t.request("GET", "/api/v1/messages?campaignId=x", { token: ws.owner.token })).body.errors.campaignId).toBeDefined();
});
