// CSV import (docs/contacts-and-campaigns.md) in process: parsing, row checks, merge rules, the report and the quota.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Uploads `csv`, runs the job, returns the import report. */
async function runImport(ws: TestWorkspace, csv: string) {
  const form = new FormData();
  form.append("file", new File([csv], "contacts.csv", { type: "text/csv" }));
  const r = await t.request("POST", "/api/v1/contacts/import", { token: ws.owner.token, body: form });
  expect(r.status).toBe(202);
  expect(r.body.data).toMatchObject({ status: "queued" });
  await t.deps.jobs.runDue();
  return (await t.request("GET", `/api/v1/contacts/imports/${r.body.data.id}`, { token: ws.owner.token })).body.data;
}
const byPhone = async (ws: TestWorkspace, phone: string) => (await t.request("GET", `/api/v1/contacts?search=${phone}`, { token: ws.owner.token })).body.data[0];

test("BOM, semicolons, quoted fields, tags split by ; or |, optedOut, attributes; bad rows reported by row number", async () => {
  const ws = await createWorkspace(t);
  const csv =
    "\uFEFFPhone;Name;Tags;OptedOut;city;notes\r\n" +
    '+91 98450-00001;Asha;VIP|lead;no;Pune;"likes ""tea""; and coffee"\r\n' +
    "12345;Bad phone;;;;\r\n" +
    '919845000002;"Ravi\nKumar";"a; b ";yes;;\r\n' +
    "919845000003;Long tag;" + "x".repeat(41) + ";;;\r\n" +
    "919845000004;Bad flag;;maybe;;\r\n" +
    "919845000005;Too many;;;;;extra\r\n" +
    "919845000006\r\n";
  const rep = await runImport(ws, csv);
  expect(rep).toMatchObject({ status: "completed", total: 7, processed: 7, created: 3, updated: 0, rejected: 4, error: null });
  expect(rep.errors.map((e: { row: number }) => e.row)).toEqual([3, 5, 6, 7]);
  expect(rep.errors[0].message).toMatch(/^phone:/);
  expect(rep.errors[1].message).toMatch(/^tags:/);
  expect(rep.errors[2].message).toMatch(/^optedOut:/);
  expect(rep.errors[3].message).toMatch(/fields/);
  expect(await byPhone(ws, "919845000001")).toMatchObject({ name: "Asha", tags: ["vip", "lead"], optedOut: false, attributes: { city: "Pune", notes: 'likes "tea"; and coffee' } });
  expect(await byPhone(ws, "919845000002")).toMatchObject({ name: "Ravi\nKumar", tags: ["a", "b"], optedOut: true, attributes: {} });
  expect((await byPhone(ws, "919845000002")).optedOutAt).not.toBeNull();
  expect(await byPhone(ws, "919845000006")).toMatchObject({ name: null, tags: [] });
  // the tag rows exist for filters
  const seg = await t.request("POST", "/api/v1/segments/preview", { token: ws.owner.token, body: { filter: { tagsAll: ["vip", "lead"], attributes: { city: "Pune" } } } });
  expect(seg.body.data.count).toBe(1);
  // the stored upload is removed once the import ends
  expect(existsSync(join(t.deps.config.dataDir, "imports", `${rep.id}.csv`))).toBe(false);
});

test("merge into existing contacts: name replaced when given, tags added, attributes set, optedOut never cleared", async () => {
  const ws = await createWorkspace(t);
  const made = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919845100001", name: "Old", tags: ["keep"], attributes: { city: "Pune", tier: "1" } } });
  await t.request("PATCH", `/api/v1/contacts/${made.body.data.id}`, { token: ws.owner.token, body: { optedOut: true } });
  const rep = await runImport(ws, "phone,name,tags,optedOut,city\n919845100001,,new,false,Delhi\n919845100002,First,x,,\n919845100002,Second,y,,Goa\n");
  expect(rep).toMatchObject({ status: "completed", created: 1, updated: 2, rejected: 0 });
  expect(await byPhone(ws, "919845100001")).toMatchObject({ name: "Old", tags: ["keep", "new"], attributes: { city: "Delhi", tier: "1" }, optedOut: true });
  // a phone twice in the file: the second row merges into the contact the first created
  expect(await byPhone(ws, "919845100002")).toMatchObject({ name: "Second", tags: ["x", "y"], attributes: { city: "Goa" } });
});

test("a comma file with semicolons inside quotes; header problems fail the import with a reason", async () => {
  const ws = await createWorkspace(t);
  expect(await runImport(ws, 'phone,name\n919845200001,"A; B"\n')).toMatchObject({ status: "completed", created: 1 });
  expect((await byPhone(ws, "919845200001")).name).toBe("A; B");
  for (const [csv, reason] of [
    ["name,city\nA,Pune\n", /phone/],
    ["phone,phone\n919845200002,919845200003\n", /twice/],
    ["phone,bad column\n919845200002,x\n", /attribute name/],
    ["", /empty/],
    ['phone,name\n919845200002,"unclosed\n', /line|quote/i],
  ] as const) {
    const rep = await runImport(ws, csv);
    expect(rep.status).toBe("failed");
    expect(rep.error).toMatch(reason);
  }
});

test("errors keep the first 1,000 rows; rejected counts them all", async () => {
  const ws = await createWorkspace(t);
  const rows = ["phone"];
  for (let i = 0; i < 1500; i++) rows.push(i % 2 ? `91984530${String(i).padStart(4, "0")}` : "bad");
  const rep = await runImport(ws, rows.join("\n"));
  expect(rep).toMatchObject({ status: "completed", total: 1500, created: 750, rejected: 750 });
  const more = await runImport(ws, ["phone", ...Array.from({ length: 600 }, () => "nope")].join("\n"));
  expect(more.rejected).toBe(600);
  expect(more.errors.length).toBe(600);
  const big = ["phone", ...Array.from({ length: 1200 }, () => "nope")].join("\n");
  const capped = await runImport(ws, big);
  expect(capped.rejected).toBe(1200);
  expect(capped.errors.length).toBe(1000);
  expect(capped.errors[999].row).toBe(1001);
});

test("at the contacts quota the remaining new contacts are rejected with the reason; merges still apply", async () => {
  await upsertPlan(t.deps.db, "tiny-import", { name: "Tiny", monthlyPaise: 100, annualPaise: 1000, limits: { sessions: 1, messagesPerMonth: 10, contacts: 3, apiRequestsPerDay: 1000, webhooks: 1, teamSeats: 5, campaigns: false } }, 0);
  const ws = await createWorkspace(t, { planId: "tiny-import", status: "active" });
  await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919845300001" } });
  const rep = await runImport(ws, "phone,tags\n919845300002,a\n919845300003,a\n919845300004,a\n919845300001,a\n919845300005,a\n");
  expect(rep).toMatchObject({ status: "completed", created: 2, updated: 1, rejected: 2 });
  expect(rep.errors).toEqual([
    { row: 4, message: expect.stringMatching(/quota/) },
    { row: 6, message: expect.stringMatching(/quota/) },
  ]);
  expect((await byPhone(ws, "919845300001")).tags).toEqual(["a"]);
});

test("import without a file part is 400 errors.file; the report of another workspace's import is 404", async () => {
  const ws = await createWorkspace(t);
  const form = new FormData();
  form.append("other", "x");
  const r = await t.request("POST", "/api/v1/contacts/import", { token: ws.owner.token, body: form });
  expect(r.status).toBe(400);
  expect(r.body.errors).toHaveProperty(["file"]);
  expect((await t.request("GET", `/api/v1/contacts/imports/${Bun.randomUUIDv7()}`, { token: ws.owner.token })).status).toBe(404);
});

test("an export imports back unchanged (createdAt is skipped); trailing empty fields are accepted", async () => {
  const a = await createWorkspace(t);
  await t.request("POST", "/api/v1/contacts", { token: a.owner.token, body: { phone: "919845400001", name: "Asha, Pune", tags: ["vip", "lead"], attributes: { city: "Pune", note: 'said "hi"' } } });
  const b0 = await t.request("POST", "/api/v1/contacts", { token: a.owner.token, body: { phone: "919845400002", tags: [] } });
  await t.request("PATCH", `/api/v1/contacts/${b0.body.data.id}`, { token: a.owner.token, body: { optedOut: true } });
  const csv = await (await t.app.handle(new Request("http://localhost/api/v1/contacts/export", { headers: { authorization: `Bearer ${a.owner.token}` } }))).text();
  const b = await createWorkspace(t);
  expect(await runImport(b, csv)).toMatchObject({ status: "completed", created: 2, rejected: 0 });
  const strip = (c: any) => ({ phone: c.phone, name: c.name, tags: c.tags, attributes: c.attributes, optedOut: c.optedOut });
  const list = async (w: TestWorkspace) => (await t.request("GET", "/api/v1/contacts", { token: w.owner.token })).body.data.map(strip).sort((x: any, y: any) => x.phone.localeCompare(y.phone));
  expect(await list(b)).toEqual(await list(a));
  expect(await runImport(b, "phone,name\n919845400003,Trailing,,\n919845400004,Extra,x\n")).toMatchObject({ created: 1, rejected: 1 });
});
