// The segment filter compiler on real SQLite: semantics of each condition, opted-out contacts
// never match, tenant isolation, keyset batches, and index use (EXPLAIN QUERY PLAN).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { insertStoredContact, storedByPhone, updateStoredContact } from "../../../src/modules/contacts/store.ts";
import { compileSegmentFilter, countSegment, readSegmentBatches, sampleSegment, segmentFilter, segmentIdsQuery } from "../../../src/modules/segments/filter.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

const DAY = 86_400_000;
let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let now: number;

function add(w: string, phone: string, o: { tags?: string[]; attributes?: Record<string, string>; optedOut?: boolean; lastInboundAt?: number | null; at?: number } = {}) {
  t.deps.sqlite.transaction(() =>
    insertStoredContact(t.deps.sqlite, w, {
      id: Bun.randomUUIDv7(),
      phone,
      name: null,
      pushName: null,
      tags: o.tags ?? [],
      attributes: o.attributes ?? {},
      optedOut: o.optedOut ?? false,
      lastInboundAt: o.lastInboundAt ?? null,
      at: o.at ?? now,
    }),
  )();
}

beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  now = t.clock.now().getTime();
  add(ws.id, "919800000001", { tags: ["vip", "lead"], attributes: { city: "Pune" }, lastInboundAt: now - DAY });
  add(ws.id, "919800000002", { tags: ["vip"], attributes: { city: "Delhi" }, at: now - 40 * DAY });
  add(ws.id, "919800000003", { tags: ["lead", "churned"], attributes: { city: "Pune", plan: "gold" }, lastInboundAt: now - 10 * DAY });
  add(ws.id, "919800000004", { tags: ["vip"], optedOut: true });
  add(ws.id, "919800000005", {});
  add(other.id, "919800000001", { tags: ["vip"], attributes: { city: "Pune" } });
});
afterAll(() => t.close());

const phones = (f: unknown) =>
  [...readSegmentBatches(t.deps.sqlite, ws.id, segmentFilter.parse(f), now, { batchSize: 2 })].flat().map((c) => c.phone.slice(-1)).sort().join("");

test.each([
  [{}, "1235"],
  [{ tagsAny: ["vip"] }, "12"],
  [{ tagsAny: [" VIP ", "churned"] }, "123"],
  [{ tagsAll: ["vip", "lead"] }, "1"],
  [{ tagsNone: ["vip"] }, "35"],
  [{ attributes: { city: "Pune" } }, "13"],
  [{ attributes: { city: "pune" } }, ""],
  [{ attributes: { city: "Pune", plan: "gold" } }, "3"],
  [{ lastInboundWithinDays: 2 }, "1"],
  [{ lastInboundWithinDays: 30 }, "13"],
  [{ createdWithinDays: 30 }, "135"],
  [{ tagsAny: ["lead"], tagsNone: ["churned"], createdWithinDays: 1 }, "1"],
])("filter %j matches opted-in contacts %s", (filter, expected) => {
  expect(phones(filter)).toBe(expected);
  expect(countSegment(t.deps.sqlite, ws.id, segmentFilter.parse(filter), now)).toBe(expected.length);
});

test("the filter schema refuses unknown keys, bad tags, keys and day counts", () => {
  for (const bad of [{ tags: ["x"] }, { tagsAny: [] }, { tagsAny: ["x".repeat(41)] }, { attributes: { "1x": "a" } }, { attributes: { a: "x".repeat(501) } }, { createdWithinDays: 0 }, { lastInboundWithinDays: 1.5 }]) {
    expect(segmentFilter.safeParse(bad).success).toBe(false);
  }
});

test("opting out and back in moves a contact out of and into segments; tag changes re-index", () => {
  const c = storedByPhone(t.deps.sqlite, ws.id, "919800000005")!;
  t.deps.sqlite.transaction(() => updateStoredContact(t.deps.sqlite, ws.id, c, { name: null, tags: ["vip"], attributes: { city: "Pune" }, optedOut: false }, now))();
  expect(phones({ tagsAny: ["vip"], attributes: { city: "Pune" } })).toBe("15");
  const c2 = storedByPhone(t.deps.sqlite, ws.id, "919800000005")!;
  t.deps.sqlite.transaction(() => updateStoredContact(t.deps.sqlite, ws.id, c2, { ...c2, tags: [], optedOut: true }, now))();
  expect(phones({})).toBe("123");
  expect(storedByPhone(t.deps.sqlite, ws.id, "919800000005")!.optedOutAt).toBe(now);
  const c3 = storedByPhone(t.deps.sqlite, ws.id, "919800000005")!;
  t.deps.sqlite.transaction(() => updateStoredContact(t.deps.sqlite, ws.id, c3, { ...c3, optedOut: false }, now))();
  expect(phones({ attributes: { city: "Pune" } })).toBe("135");
  expect(t.deps.sqlite.query("SELECT count(*) AS n FROM contact_tags WHERE contact_id = ?").get(c.id)).toEqual({ n: 0 });
});

test("ids query, sample and resume after an id", () => {
  const f = segmentFilter.parse({});
  const q = segmentIdsQuery(ws.id, f, now);
  const ids = (t.deps.sqlite.query(q.sql).all(...q.params) as { id: string }[]).map((r) => r.id);
  expect(ids).toEqual([...ids].sort());
  const rest = [...readSegmentBatches(t.deps.sqlite, ws.id, f, now, { afterId: ids[0] })].flat().map((c) => c.id);
  expect(rest).toEqual(ids.slice(1));
  const sample = sampleSegment(t.deps.sqlite, ws.id, f, now, 2);
  expect(sample.length).toBe(2);
  expect(sample[0]!.attributes).toBeTypeOf("object");
});

test("EXPLAIN QUERY PLAN: every condition is answered from an index, never a scan", () => {
  const filters = [{ tagsAny: ["vip"] }, { tagsAll: ["vip", "lead"] }, { tagsNone: ["vip"] }, { attributes: { city: "Pune" } }, { lastInboundWithinDays: 7 }, { createdWithinDays: 7 }, {}];
  for (const f of filters) {
    const { where, params } = compileSegmentFilter(ws.id, segmentFilter.parse(f), now);
    const plan = (t.deps.sqlite.query(`EXPLAIN QUERY PLAN SELECT count(*) FROM contacts c WHERE ${where}`).all(...params) as { detail: string }[]).map((r) => r.detail);
    expect(plan.some((d) => /^SCAN /.test(d))).toBe(false);
    expect(plan[0]).toMatch(/^SEARCH c USING (COVERING )?INDEX contacts_/);
    if (f.tagsAny || f.tagsAll || f.tagsNone) expect(plan.join("\n")).toContain("SEARCH contact_tags USING COVERING INDEX");
    if (f.attributes) expect(plan.join("\n")).toContain("SEARCH contact_attributes USING COVERING INDEX");
  }
});
