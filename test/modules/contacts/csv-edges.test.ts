// CSV edges found in review: formula cells neutralised in the export (OWASP CSV injection) and
// imported back unchanged; files that are empty, have no phone column, invalid UTF-8, a huge line.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { sqliteOf } from "../../../src/db/sqlite.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { exportCsv as exportOf, importCsv } from "./csv-helpers.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const runImport = async (ws: TestWorkspace, file: string | Uint8Array<ArrayBuffer>) => (await importCsv(t, ws, file)).report;
const exportCsv = (ws: TestWorkspace) => exportOf(t, ws);

test("export: cells starting with = + - @ are written as text (leading '), and the export imports back unchanged", async () => {
  const ws = await createWorkspace(t);
  const evil = { name: '=HYPERLINK("http://evil.example","x")', tags: ["+cmd", "ok"], attributes: { note: "@SUM(1+1)", debt: "-5", city: "Pune" } };
  const c = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919845090001", ...evil } });
  expect(c.status).toBe(201);
  const csv = await exportCsv(ws);
  const [header, row] = parse(csv) as string[][];
  const col = (k: string) => row![header!.indexOf(k)]!;
  expect(col("name")).toBe(`'${evil.name}`);
  expect(col("tags")).toBe("'+cmd;ok");
  expect(col("note")).toBe("'@SUM(1+1)");
  expect(col("debt")).toBe("'-5");
  expect(col("city")).toBe("Pune");
  for (const cell of row!) expect(cell).not.toMatch(/^[=+\-@]/);
  // the same file imported into another workspace gives the same contact
  const other = await createWorkspace(t);
  const rep = await runImport(other, csv);
  expect(rep).toMatchObject({ status: "completed", created: 1, rejected: 0 });
  const back = (await t.request("GET", "/api/v1/contacts?search=919845090001", { token: other.owner.token })).body.data[0];
  expect(back).toMatchObject({ name: evil.name, tags: ["+cmd", "ok"], attributes: evil.attributes });
});

test("a 0-byte file and a header without phone fail the import with a reason; nothing is created", async () => {
  const ws = await createWorkspace(t);
  const empty = await runImport(ws, "");
  expect(empty.status === "failed" || (empty.status === "completed" && empty.total === 0)).toBe(true);
  const nophone = await runImport(ws, "name,city\nAsha,Pune\n");
  expect(nophone).toMatchObject({ status: "failed" });
  expect(nophone.error).toMatch(/phone/);
  expect((await t.request("GET", "/api/v1/contacts", { token: ws.owner.token })).body.data).toEqual([]);
});

test("invalid UTF-8 in a cell does not break the import; a huge field is that row's problem", async () => {
  const ws = await createWorkspace(t);
  const head = new TextEncoder().encode("phone,name,note\n919845090002,");
  const bad = new Uint8Array([0xff, 0xfe, 0x41]);
  const tail = new TextEncoder().encode(`,x\n919845090003,Ok,${"y".repeat(600)}\n919845090004,Fine,z\n`);
  const file = new Uint8Array([...head, ...bad, ...tail]);
  const rep = await runImport(ws, file);
  expect(rep).toMatchObject({ status: "completed", total: 3, created: 2, rejected: 1 });
  expect(rep.errors).toEqual([{ row: 3, message: expect.stringMatching(/^note:/) }]);
});

test("a line longer than 1 MiB (or an unclosed quote) ends the import with its line number; the rows before it are kept", async () => {
  const ws = await createWorkspace(t);
  const csv = "phone,name\n919845090011,A\n919845090012,B\n919845090013," + "z".repeat(2 * 1024 * 1024) + "\n919845090014,D\n";
  const rep = await runImport(ws, csv);
  expect(rep).toMatchObject({ status: "failed", total: 2, processed: 2, created: 2 });
  expect(rep.error).toMatch(/line 4/);
  const unclosed = await runImport(ws, 'phone,name\n919845090021,A\n919845090022,"B\n');
  expect(unclosed).toMatchObject({ status: "failed", total: 1, processed: 1, created: 1 });
  expect(unclosed.error).toMatch(/quote/i);
});

test("export with the list's filters: only matching contacts; a tag filter's keyset batch probes per contact (no whole tag set per batch)", async () => {
  const ws = await createWorkspace(t);
  for (const [phone, tags, optedOut] of [["919845090031", ["vip"], false], ["919845090032", ["vip"], true], ["919845090033", ["lead"], false]] as const) {
    expect((await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone, tags } })).status).toBe(201);
    if (optedOut) {
      const c = (await t.request("GET", `/api/v1/contacts?search=${phone}`, { token: ws.owner.token })).body.data[0];
      await t.request("PATCH", `/api/v1/contacts/${c.id}`, { token: ws.owner.token, body: { optedOut: true } });
    }
  }
  const get = async (q: string) =>
    (parse(await (await t.app.handle(new Request(`http://localhost/api/v1/contacts/export?${q}`, { headers: { authorization: `Bearer ${ws.owner.token}` } }))).text()) as string[][])
      .slice(1)
      .map((r) => r[0])
      .sort();
  expect(await get("tag=vip")).toEqual(["919845090031", "919845090032"]);
  expect(await get("tag=vip&optedOut=false")).toEqual(["919845090031"]);
  expect(await get("tag=vip&tag=lead&optedOut=false")).toEqual(["919845090031", "919845090033"]);
  expect(await get("search=984509003")).toEqual(["919845090031", "919845090032", "919845090033"]);
  const { contactsAfterQuery } = await import("../../../src/modules/contacts/repo.ts");
  const q = contactsAfterQuery(t.deps.db, ws.id, { tag: ["vip", "lead"] }, { createdAt: 0, id: "" }, 1000).toSQL();
  // the plan checked is SQLite's (EXPLAIN QUERY PLAN); PostgreSQL plans its own way
  const sqlite = sqliteOf(t.deps.db);
  if (sqlite) {
    const plan = (sqlite.query(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.params as string[])) as { detail: string }[]).map((r) => r.detail).join("\n");
    expect(plan).not.toContain("LIST SUBQUERY");
    expect(plan).toMatch(/contact_tags .*contact_id=\?/);
    // every batch a range read in the export's order, never a sort of the workspace
    for (const [filter, after] of [[{}, null], [{}, { createdAt: 1, id: "x" }], [{ optedOut: false }, { createdAt: 1, id: "x" }]] as const) {
      const b = contactsAfterQuery(t.deps.db, ws.id, filter, after, 1000).toSQL();
      const p = (sqlite.query(`EXPLAIN QUERY PLAN ${b.sql}`).all(...(b.params as string[])) as { detail: string }[]).map((r) => r.detail).join("\n");
      expect(p).toContain("contacts_ws_created_idx");
      expect(p).not.toContain("TEMP B-TREE");
    }
  }
});
