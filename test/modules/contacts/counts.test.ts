// The kept contact counts (one row per workspace, moved by triggers inside each writing
// transaction) equal a count of the rows after every kind of write, and a list's total reads
// them: the unfiltered list, opted in and opted out. Another workspace's counts never move.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { contactCounts } from "../../../src/modules/contacts/store.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { importCsv } from "./csv-helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t, { planId: "pro", status: "active" });
  other = await createWorkspace(t, { planId: "pro", status: "active" });
});
afterAll(() => t.close());

/** The rows counted now, in one statement. */
async function counted(wsId: string) {
  const r = await t.deps.db.prepare<{ total: number; optedOut: number | null }>('SELECT count(*) AS total, sum(opted_out) AS "optedOut" FROM contacts WHERE workspace_id = ?').get(wsId);
  return { total: Number(r!.total), optedOut: Number(r!.optedOut ?? 0) };
}

const total = async (w: TestWorkspace, query = "") => (await t.request("GET", `/api/v1/contacts?limit=1${query}`, { token: w.owner.token })).body.pagination.total as number;

/** The kept counts equal the rows, and the list's totals show them. */
async function expectInStep(w: TestWorkspace): Promise<{ total: number; optedOut: number }> {
  const rows = await counted(w.id);
  expect(await contactCounts(t.deps.db, w.id)).toEqual(rows);
  expect(await total(w)).toBe(rows.total);
  expect(await total(w, "&optedOut=true")).toBe(rows.optedOut);
  expect(await total(w, "&optedOut=false")).toBe(rows.total - rows.optedOut);
  return rows;
}

test("create, import, opt out and in, delete: the kept counts equal the rows after each, and the list's totals read them", async () => {
  expect(await expectInStep(ws)).toEqual({ total: 0, optedOut: 0 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: `91810000000${i}`, tags: ["a"] } });
    expect(r.status).toBe(201);
    ids.push(r.body.data.id);
  }
  expect(await expectInStep(ws)).toEqual({ total: 5, optedOut: 0 });
  // an import: new rows (some opted out) and a merge into an existing contact
  const lines = ["phone,name,optedOut", "918100000000,Merged,true"];
  for (let i = 0; i < 300; i++) lines.push(`9182${String(i).padStart(8, "0")},P${i},${i % 3 === 0}`);
  const { report } = await importCsv(t, ws, lines.join("\n") + "\n");
  expect(report).toMatchObject({ status: "completed", created: 300, updated: 1 });
  expect(await expectInStep(ws)).toEqual({ total: 305, optedOut: 101 });
  // opt out and back in through the API
  expect((await t.request("PATCH", `/api/v1/contacts/${ids[1]}`, { token: ws.owner.token, body: { optedOut: true } })).status).toBe(200);
  expect(await expectInStep(ws)).toEqual({ total: 305, optedOut: 102 });
  expect((await t.request("PATCH", `/api/v1/contacts/${ids[0]}`, { token: ws.owner.token, body: { optedOut: false } })).status).toBe(200);
  expect(await expectInStep(ws)).toEqual({ total: 305, optedOut: 101 });
  // a change that leaves opted_out as it was moves nothing
  expect((await t.request("PATCH", `/api/v1/contacts/${ids[2]}`, { token: ws.owner.token, body: { name: "Renamed" } })).status).toBe(200);
  for (const id of ids.slice(0, 2)) expect((await t.request("DELETE", `/api/v1/contacts/${id}`, { token: ws.owner.token })).status).toBe(200);
  expect(await expectInStep(ws)).toEqual({ total: 303, optedOut: 100 });
  // a tag filter or a search still counts its rows
  expect(await total(ws, "&tag=a")).toBe(3);
  expect(await total(ws, "&search=P29")).toBe(11);
  // the other workspace saw none of it
  expect(await expectInStep(other)).toEqual({ total: 0, optedOut: 0 });
});

test("a transaction rolled back leaves the counts as they were", async () => {
  const before = await counted(ws.id);
  await expect(
    t.deps.db.tx(async () => {
      await t.deps.db.prepare("INSERT INTO contacts (id, workspace_id, phone, opted_out, created_at, updated_at) VALUES (?, ?, ?, 1, 0, 0)").run(Bun.randomUUIDv7(), ws.id, "918399999999");
      await t.deps.db.prepare("DELETE FROM contacts WHERE workspace_id = ? AND phone = ?").run(ws.id, "918200000001");
      throw new Error("rolled back");
    }),
  ).rejects.toThrow("rolled back");
  expect(await contactCounts(t.deps.db, ws.id)).toEqual(before);
  expect(await expectInStep(ws)).toEqual(before);
});

test("the contacts quota reads the kept count: at the plan's limit a create answers 403 LIMIT_EXCEEDED", async () => {
  const free = await createWorkspace(t, { planId: "free", status: "active" });
  const limit = 500; // the Free plan's contacts
  const now = Date.now();
  await t.deps.db.tx(async () => {
    const ins = t.deps.db.prepare("INSERT INTO contacts (id, workspace_id, phone, created_at, updated_at) VALUES (?, ?, ?, ?, ?)");
    for (let i = 0; i < limit; i++) await ins.run(Bun.randomUUIDv7(), free.id, `9184${String(i).padStart(8, "0")}`, now, now);
  });
  const r = await t.request("POST", "/api/v1/contacts", { token: free.owner.token, body: { phone: "918499999999" } });
  expect(r.status).toBe(403);
  expect(r.body.code).toBe("LIMIT_EXCEEDED");
  expect(await expectInStep(free)).toEqual({ total: limit, optedOut: 0 });
});

test("deleting a workspace takes its counts with it", async () => {
  const gone = await createWorkspace(t);
  expect((await t.request("POST", "/api/v1/contacts", { token: gone.owner.token, body: { phone: "918500000001" } })).status).toBe(201);
  expect((await contactCounts(t.deps.db, gone.id)).total).toBe(1);
  await t.deps.db.prepare("DELETE FROM workspaces WHERE id = ?").run(gone.id);
  const left = await t.deps.db.prepare("SELECT 1 AS x FROM contact_counts WHERE workspace_id = ?").get(gone.id);
  expect(left).toBeUndefined();
});
