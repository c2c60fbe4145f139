import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession } from "../messages/helpers.ts";
import { advanceUntil, campaign, campaignBody, checkProgress, newCampaign, progressEvents, seedContacts, simSent } from "./helpers.ts";

const dataDir = mkdtempSync(join(tmpdir(), "parley-campaign-"));
const t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { dataDir, autoReceipts: false } });
afterAll(() => t.close());

test("1,000 contacts over two sessions: every opted-in recipient gets exactly one message with its variables, opted-out none", async () => {
  const ws = await createWorkspace(t);
  const a = await connectedSession(t, ws);
  const b = await connectedSession(t, ws);
  const people = seedContacts(t, ws, 1000, (i) => ({ optedOut: i % 10 === 0, name: i % 7 === 0 ? null : `Person ${i}` }));
  const events = progressEvents(t);
  const id = await newCampaign(t, ws, campaignBody([a.id, b.id], people.map((p) => p.id)));
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

  const data = events.filter((e) => e.data.campaignId === id).map((e) => e.data);
  expect(data.length).toBeGreaterThan(2);
  expect(checkProgress(data)).toEqual([]);
  expect(data.at(-1)!.status).toBe("completed");
}, 120_000);
