// Segment counts over a workspace larger than one window: added up window by window (the event
// loop gets a turn between them), they equal one count over the whole workspace, for every kind
// of condition; another workspace's contacts never count.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { insertStoredContact } from "../../../src/modules/contacts/store.ts";
import { bound, compileSegmentFilter, countSegment, sampleSegment, WINDOW, type SegmentFilter } from "../../../src/modules/segments/filter.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

const N = WINDOW * 2 + 300;
const DAY = 86_400_000;
let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;

async function seed(w: TestWorkspace, n: number) {
  const now = t.clock.now().getTime();
  await t.deps.db.tx(async () => {
    for (let i = 0; i < n; i++) {
      await insertStoredContact(t.deps.db, w.id, {
        id: Bun.randomUUIDv7(),
        phone: `9179${String(i).padStart(8, "0")}`,
        name: null,
        pushName: null,
        tags: [i % 2 ? "odd" : "even", ...(i % 7 === 0 ? ["vip"] : [])],
        attributes: { city: i % 3 ? "Pune" : "Delhi" },
        optedOut: i % 11 === 0,
        lastInboundAt: i % 4 === 0 ? now - (i % 8) * DAY : null,
        at: now - (i % 5) * DAY,
      });
    }
  });
}

beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  await seed(ws, N);
  await seed(other, 500);
}, 120_000);
afterAll(() => t.close());

const FILTERS: SegmentFilter[] = [
  {},
  { tagsAny: ["vip"] },
  { tagsAll: ["odd", "vip"] },
  { tagsNone: ["even"] },
  { attributes: { city: "Delhi" } },
  { tagsAny: ["odd"], attributes: { city: "Pune" }, lastInboundWithinDays: 3 },
  { createdWithinDays: 2, tagsNone: ["vip"] },
  { tagsAny: ["nobody-has-this"] },
];

test(`counts over ${N.toLocaleString("en")} contacts (three windows) equal one count over the whole workspace, for each kind of condition`, async () => {
  const now = t.clock.now();
  for (const filter of FILTERS) {
    const { where, params } = compileSegmentFilter(ws.id, filter, now);
    const whole = Number((await t.deps.db.get<{ n: number }>(bound(`SELECT count(*) AS n FROM contacts c WHERE ${where}`, params)))!.n);
    expect({ filter, n: await countSegment(t.deps.db, ws.id, filter, now) }).toEqual({ filter, n: whole });
  }
  expect(await countSegment(t.deps.db, ws.id, {}, now)).toBe(N - Math.ceil(N / 11));
}, 120_000);

test("a preview's sample walks windows from the newest back: the same 10 contacts as one query over the workspace, also for a filter matching only old contacts", async () => {
  const now = t.clock.now();
  // the oldest contact (first seeded) gets a tag no other has: a sample must walk every window to find it
  const oldest = (await t.deps.db.prepare<{ id: string }>("SELECT id FROM contacts WHERE workspace_id = ? AND opted_out = 0 ORDER BY id LIMIT 1").get(ws.id))!.id;
  await t.deps.db.prepare("INSERT INTO contact_tags (workspace_id, tag, contact_id) VALUES (?, 'first', ?)").run(ws.id, oldest);
  for (const filter of [...FILTERS, { tagsAny: ["first"] }]) {
    const { where, params } = compileSegmentFilter(ws.id, filter, now);
    const whole = await t.deps.db.all<{ id: string }>(bound(`SELECT c.id FROM contacts c WHERE ${where} ORDER BY c.id DESC LIMIT 10`, params));
    expect({ filter, ids: (await sampleSegment(t.deps.db, ws.id, filter, now, 10)).map((c) => c.id) }).toEqual({ filter, ids: whole.map((r) => r.id) });
  }
  expect((await sampleSegment(t.deps.db, ws.id, { tagsAny: ["first"] }, now, 10)).map((c) => c.id)).toEqual([oldest]);
}, 120_000);

test("the routes answer the windowed count; another workspace's contacts never count", async () => {
  const filter = { tagsAny: ["vip"] };
  const mine = await countSegment(t.deps.db, ws.id, filter, t.clock.now());
  const created = await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body: { name: "vips", filter } });
  expect(created.status).toBe(201);
  expect(created.body.data.count).toBe(mine);
  const got = await t.request("GET", `/api/v1/segments/${created.body.data.id}`, { token: ws.owner.token });
  expect(got.body.data.count).toBe(mine);
  const preview = await t.request("POST", "/api/v1/segments/preview", { token: ws.owner.token, body: { filter } });
  expect(preview.body.data.count).toBe(mine);
  const theirs = await t.request("POST", "/api/v1/segments/preview", { token: other.owner.token, body: { filter } });
  expect(theirs.body.data.count).toBe(await countSegment(t.deps.db, other.id, filter, t.clock.now()));
  expect(theirs.body.data.count).toBeLessThan(100);
  expect((await t.request("GET", `/api/v1/segments/${created.body.data.id}`, { token: other.owner.token })).status).toBe(404);
}, 60_000);
