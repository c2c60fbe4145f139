// An export imports back unchanged: tags with the separators in them, values that start with a
// quote before a formula character, attribute values with spaces. And a file the parser cannot
// read fails at once, with its line and column, instead of being retried as an internal error.
import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { joinTags } from "../../../src/modules/contacts/export.ts";
import { splitTags } from "../../../src/modules/contacts/import-row.ts";
import { exportCsv as exportOf, importCsv } from "./csv-helpers.ts";

const t = await createTestApp();
afterAll(() => t.close());

const runImport = (ws: TestWorkspace, file: string | Uint8Array<ArrayBuffer>) => importCsv(t, ws, file);
const exportCsv = (ws: TestWorkspace) => exportOf(t, ws);
const strip = ({ id: _i, createdAt: _c, updatedAt: _u, ...rest }: Record<string, unknown>) => rest;

test("export then import gives back the same contacts: separators in tags, a stored leading quote, spaces in attributes", async () => {
  const ws = await createWorkspace(t);
  const people = [
    { phone: "919845093001", name: "'=keep", tags: ["a;b", "c|d", "e\\f", "g\\", "plain", "=sum"], attributes: { note: "  spaced  ", q: "'=keep", qq: "''@x", f: "=1+1", back: "\\;", t: "\ttab" } },
    { phone: "919845093002", name: "Ravi, K", tags: ["north, east"], attributes: { q: "'plain quote", minus: "-5" } },
  ];
  for (const p of people) expect((await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: p })).status).toBe(201);
  const before = (await t.request("GET", "/api/v1/contacts?limit=100", { token: ws.owner.token })).body.data.map(strip);
  const other = await createWorkspace(t);
  const { report } = await runImport(other, await exportCsv(ws));
  expect(report).toMatchObject({ status: "completed", created: 2, rejected: 0 });
  const after = (await t.request("GET", "/api/v1/contacts?limit=100", { token: other.owner.token })).body.data.map(strip);
  const byPhone = (list: Record<string, unknown>[]) => Object.fromEntries(list.map((c) => [c.phone, c]));
  expect(byPhone(after)).toEqual(byPhone(before));
  // and once more: the second export is the first one
  expect(await exportCsv(other)).toBe(await exportCsv(ws));
});

test("tags: the export's escapes read back; a hand-written backslash before anything else is kept", () => {
  for (const tags of [["a;b", "c|d"], ["e\\f", "g\\"], ["\\;", "|", ";;"]]) expect(splitTags(joinTags(tags))).toEqual(tags);
  expect(splitTags("a\\b;c|d")).toEqual(["a\\b", "c", "d"]);
});

test("a misplaced quote fails the import at once (one run, no retries) with its line and column", async () => {
  const ws = await createWorkspace(t);
  const { runs, report } = await runImport(ws, 'phone,name\n919845093011,Ok\n919845093012,Jo"hn\n');
  expect(runs).toBe(1);
  expect(report.status).toBe("failed");
  expect(report.error).toMatch(/^line 3, column 2: /);
  expect(report.error).toMatch(/quote/i);
});

test("binary bytes fail the import at once, saying so; nothing is created", async () => {
  const ws = await createWorkspace(t);
  const zipLike = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x22, 0x0a, 0x22, 0x2c]);
  const { runs, report } = await runImport(ws, zipLike);
  expect(runs).toBe(1);
  expect(report).toMatchObject({ status: "failed" });
  expect(report.error).toMatch(/not CSV text.*byte 6/);
  expect((await t.request("GET", "/api/v1/contacts", { token: ws.owner.token })).body.data).toEqual([]);
});
