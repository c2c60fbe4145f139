// The segment filter compiler on real SQLite: semantics of each condition, opted-out contacts
// never match, tenant isolation, keyset batches, and index use (EXPLAIN QUERY PLAN).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sqliteOf } from "../../../src/db/sqlite.ts";
import { insertStoredContact, storedByPhone, updateStoredContact } from "../../../src/modules/contacts/store.ts";
import { compileSegmentFilter, countSegment, readSegmentBatches, sampleSegment, segmentBatchQuery, segmentFilter, segmentIdsQuery } from "../../../src/modules/segments/filter.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { testEngine } from "../../helpers/postgres.ts";

const DAY = 86_400_000;
let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let now: number;

async function add(w: string, phone: string, o: { tags?: string[]; attributes?: Record<string, string>; optedOut?: boolean; lastInboundAt?: number | null; at?: number } = {}) {
  await t.deps.db.tx(() =>
    insertStoredContact(t.deps.db, w, {
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
  );
}

beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  now = t.clock.now().getTime();
  await add(ws.id, "919800000001", { tags: ["vip", "lead"], attributes: { city: "Pune" }, lastInboundAt: now - DAY });
  await add(ws.id, "919800000002", { tags: ["vip"], attributes: { city: "Delhi" }, at: now - 40 * DAY });
  await add(ws.id, "919800000003", { tags: ["lead", "churned"], attributes: { city: "Pune", plan: "gold" }, lastInboundAt: now - 10 * DAY });
  await add(ws.id, "919800000004", { tags: ["vip"], optedOut: true });
  await add(ws.id, "919800000005", {});
  await add(other.id, "919800000001", { tags: ["vip"], attributes: { city: "Pune" } });
});
afterAll(() => t.close());

const phones = async (f: unknown) =>
  (await Array.fromAsync(readSegmentBatches(t.deps.db, ws.id, segmentFilter.parse(f), now, { batchSize: 2 }))).flat().map((c) => c.phone.slice(-1)).sort().join("");

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
])("filter %j matches opted-in contacts %s", async (filter, expected) => {
  expect(await phones(filter)).toBe(expected);
  expect(await countSegment(t.deps.db, ws.id, segmentFilter.parse(filter), now)).toBe(expected.length);
});

test("the filter schema refuses unknown keys, bad tags, keys and day counts", () => {
  for (const bad of [{ tags: ["x"] }, { tagsAny: [] }, { tagsAny: ["x".repeat(41)] }, { attributes: { "1x": "a" } }, { attributes: { a: "x".repeat(501) } }, { createdWithinDays: 0 }, { lastInboundWithinDays: 1.5 }]) {
    expect(segmentFilter.safeParse(bad).success).toBe(false);
  }
});

test("opting out and back in moves a contact out of and into segments; tag changes re-index", async () => {
  const c = (await storedByPhone(t.deps.db, ws.id, "919800000005"))!;
  await t.deps.db.tx(() => updateStoredContact(t.deps.db, ws.id, c, { name: null, tags: ["vip"], attributes: { city: "Pune" }, optedOut: false }, now));
  expect(await phones({ tagsAny: ["vip"], attributes: { city: "Pune" } })).toBe("15");
  const c2 = (await storedByPhone(t.deps.db, ws.id, "919800000005"))!;
  await t.deps.db.tx(() => updateStoredContact(t.deps.db, ws.id, c2, { ...c2, tags: [], optedOut: true }, now));
  expect(await phones({})).toBe("123");
  expect((await storedByPhone(t.deps.db, ws.id, "919800000005"))!.optedOutAt).toBe(now);
  const c3 = (await storedByPhone(t.deps.db, ws.id, "919800000005"))!;
  await t.deps.db.tx(() => updateStoredContact(t.deps.db, ws.id, c3, { ...c3, optedOut: false }, now));
  expect(await phones({ attributes: { city: "Pune" } })).toBe("135");
  expect(await t.deps.db.prepare("SELECT count(*) AS n FROM contact_tags WHERE contact_id = ?").get(c.id)).toEqual({ n: 0 });
});

test("ids query, sample and resume after an id", async () => {
  const f = segmentFilter.parse({});
  const q = segmentIdsQuery(ws.id, f, now);
  const ids = (await t.deps.db.prepare(q.sql).all(...q.params) as { id: string }[]).map((r) => r.id);
  expect(ids).toEqual([...ids].sort());
  const rest = (await Array.fromAsync(readSegmentBatches(t.deps.db, ws.id, f, now, { afterId: ids[0] }))).flat().map((c) => c.id);
  expect(rest).toEqual(ids.slice(1));
  const sample = await sampleSegment(t.deps.db, ws.id, f, now, 2);
  expect(sample.length).toBe(2);
  expect(sample[0]!.attributes).toBeTypeOf("object");
});

// the plans checked are SQLite's (EXPLAIN QUERY PLAN); PostgreSQL plans its own way
test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): EXPLAIN QUERY PLAN: every condition is answered from an index, never a scan", () => {
  const filters = [{ tagsAny: ["vip"] }, { tagsAll: ["vip", "lead"] }, { tagsNone: ["vip"] }, { attributes: { city: "Pune" } }, { lastInboundWithinDays: 7 }, { createdWithinDays: 7 }, {}];
  for (const f of filters) {
    const { where, params } = compileSegmentFilter(ws.id, segmentFilter.parse(f), now);
    const plan = (sqliteOf(t.deps.db)!.query(`EXPLAIN QUERY PLAN SELECT count(*) FROM contacts c WHERE ${where}`).all(...params) as { detail: string }[]).map((r) => r.detail);
    expect(plan.some((d) => /^SCAN /.test(d))).toBe(false);
    expect(plan[0]).toMatch(/^SEARCH c USING (COVERING )?INDEX contacts_/);
    if (f.tagsAny || f.tagsAll || f.tagsNone) expect(plan.join("\n")).toContain("SEARCH contact_tags USING COVERING INDEX");
    if (f.attributes) expect(plan.join("\n")).toContain("SEARCH contact_attributes USING COVERING INDEX");
  }
});

test.skipIf(testEngine === "postgres")("SQLite only (its own machinery; skipped on PostgreSQL): EXPLAIN QUERY PLAN: a keyset batch walks the opted-in index from its cursor and probes per contact (no whole tag set listed again per batch)", () => {
  const filters = [{ tagsAny: ["vip", "lead"] }, { tagsAll: ["vip", "lead"] }, { tagsNone: ["vip"] }, { attributes: { city: "Pune" } }, { tagsAny: ["lead"], tagsNone: ["churned"], attributes: { city: "Pune" } }];
  for (const f of filters) {
    const { sql, params } = segmentBatchQuery(ws.id, segmentFilter.parse(f), now);
    const plan = (sqliteOf(t.deps.db)!.query(`EXPLAIN QUERY PLAN ${sql}`).all(...params, "", 10) as { detail: string }[]).map((r) => r.detail);
    const text = plan.join("\n");
    // a LIST SUBQUERY is built in full on every execution: one per batch made reading N contacts O(N²)
    expect(text).not.toContain("LIST SUBQUERY");
    expect(text).not.toContain("TEMP B-TREE");
    expect(plan[0]).toMatch(/^SEARCH c USING (COVERING )?INDEX contacts_ws_optin_idx \(workspace_id=\? AND opted_out=\? AND id>\?\)/);
    // every tag and attribute condition is a primary-key probe for the contact at hand
    const probes = plan.filter((d) => /contact_(tags|attributes)/.test(d));
    expect(probes.length).toBeGreaterThan(0);
    for (const d of probes) expect(d).toMatch(/USING COVERING INDEX sqlite_autoindex_contact_\w+ \(.*contact_id=\?\)$/);
  }
});

test("special characters in tags and attribute values are data, never SQL or patterns (quotes, %, _, backslash, unicode)", async () => {
  const w = other.id;
  await add(w, "919800000101", { tags: ["o'brien", "50%", "a_b"], attributes: { note: `he said "hi"; DROP TABLE contacts; --`, city: "São Paulo" } });
  await add(w, "919800000102", { tags: ["obrien", "50x", "axb"], attributes: { note: "plain", city: "Sao Paulo" } });
  const count = (f: unknown) => countSegment(t.deps.db, w, segmentFilter.parse(f), now);
  const read = async (f: unknown) => (await Array.fromAsync(readSegmentBatches(t.deps.db, w, segmentFilter.parse(f), now, { batchSize: 1 }))).flat().map((c) => c.phone);
  for (const f of [{ tagsAny: ["O'Brien"] }, { tagsAll: ["50%", "a_b"] }, { attributes: { note: `he said "hi"; DROP TABLE contacts; --` } }, { attributes: { city: "São Paulo" } }]) {
    expect(await count(f)).toBe(1);
    expect(await read(f)).toEqual(["919800000101"]);
  }
  expect(await read({ tagsNone: ["50%"] })).not.toContain("919800000101");
  expect(await read({ tagsNone: ["50%"] })).toContain("919800000102");
});
