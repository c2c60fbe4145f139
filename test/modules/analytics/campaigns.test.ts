import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { campaigns } from "../../../src/modules/campaigns/table.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain } from "../messages/helpers.ts";
import { advanceUntil, campaignBody, newCampaign, seedContacts, settle } from "../campaigns/helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;

/** A campaign row with the given counters (they add up to total, as the engine keeps them). */
async function seedCampaign(workspaceId: string, name: string, c: { sent?: number; delivered?: number; read?: number; failed?: number; pending?: number; skipped?: number }) {
  const id = Bun.randomUUIDv7();
  const now = t.clock.nowMs();
  const n = { sent: 0, delivered: 0, read: 0, failed: 0, pending: 0, skipped: 0, ...c };
  await t.deps.db.insert(campaigns).values({
    id, workspaceId, name, status: n.pending ? "running" : "completed", sessionIds: [], message: { type: "text", body: "hi" }, audience: { contactIds: [] }, pacing: {},
    total: n.sent + n.delivered + n.read + n.failed + n.pending + n.skipped, ...n, createdAt: now, updatedAt: now, startedAt: now, completedAt: n.pending ? null : now,
  }).run();
  await Bun.sleep(1);
  return id;
}

const list = (query = "", token = ws.owner.token) => t.request("GET", `/api/v1/analytics/campaigns${query}`, { token });

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { autoReceipts: false } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  await seedCampaign(ws.id, "spring sale", { sent: 10, delivered: 30, read: 40, failed: 20 });
  await seedCampaign(ws.id, "not started yet", { pending: 5 });
  await seedCampaign(other.id, "someone else's", { read: 3 });
});
afterAll(() => t.close());

describe("GET /api/v1/analytics/campaigns", () => {
  test("each campaign with delivered and read rates of what was sent, newest first", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body.pagination).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    const [fresh, spring] = r.body.data;
    expect(fresh).toMatchObject({ name: "not started yet", status: "running", total: 5, pending: 5, sent: 0, deliveredRate: null, readRate: null, completedAt: null });
    expect(spring).toMatchObject({ name: "spring sale", status: "completed", total: 100, sent: 80, delivered: 70, read: 40, failed: 20, skipped: 0, deliveredRate: 0.875, readRate: 0.5 });
    expect(typeof spring.createdAt).toBe("string");
  });

  test("a campaign run through the network", async () => {
    const session = await connectedSession(t, ws);
    const people = await seedContacts(t, ws, 4);
    const id = await newCampaign(t, ws, campaignBody([session.id], people.map((p) => p.id)));
    const ofSession = () => t.sim.sent.filter((s) => s.sessionId === session.id);
    await advanceUntil(t, 1000, () => ofSession().length === 4, 200);
    await drain(t);
    const sent = ofSession();
    expect(sent).toHaveLength(4);
    t.sim.receipt(session.id, sent[0]!.networkMessageId, "read");
    t.sim.receipt(session.id, sent[1]!.networkMessageId, "delivered");
    let row: any;
    for (let i = 0; i < 200 && !(row?.read === 1 && row?.delivered === 2); i++) {
      await Bun.sleep(5);
      await settle(t);
      row = (await list()).body.data.find((c: { id: string }) => c.id === id);
    }
    expect(row).toMatchObject({ total: 4, sent: 4, delivered: 2, read: 1, deliveredRate: 0.5, readRate: 0.25 });
  });

  test("pages; another workspace sees only its own", async () => {
    const page = await list("?limit=1&page=2");
    expect(page.body.pagination).toMatchObject({ page: 2, limit: 1, total: 3 });
    expect(page.body.data).toHaveLength(1);
    const theirs = await list("", other.owner.token);
    expect(theirs.body.data.map((c: { name: string }) => c.name)).toEqual(["someone else's"]);
    expect((await list("?limit=500")).status).toBe(400);
  });

  test("every member reads; no credential is 401", async () => {
    for (const role of ["admin", "agent", "viewer"] as const) expect((await list("", (await ws.member(role)).token)).status).toBe(200);
    expect((await t.request("GET", "/api/v1/analytics/campaigns")).status).toBe(401);
  });
});
