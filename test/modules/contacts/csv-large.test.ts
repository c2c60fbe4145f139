// An import and an export larger than one batch: the import applies its rows a slice of time per
// transaction and the export reads a range of its index per batch, giving the event loop a turn
// between them; the outcome is that of one pass: every row once. Many contacts share a creation
// time (one per import transaction), so the export's keyset must break ties by id.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { EXPORT_BATCH } from "../../../src/modules/contacts/export.ts";
import { largestSlice } from "../../../src/yield.ts";
import { exportCsv, importCsv } from "./csv-helpers.ts";

const ROWS = 2_600;
let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t, { planId: "pro", status: "active" });
});
afterAll(() => t.close());

test(`an import of ${ROWS.toLocaleString("en")} rows, then the export: each contact created once and exported once, with its cells`, async () => {
  const lines = ["phone,name,tags,city"];
  for (let i = 0; i < ROWS; i++) lines.push(`9180${String(i).padStart(8, "0")},Person ${i},${i % 2 ? "odd" : "even"};all,${i % 3 ? "Pune" : "Delhi"}`);
  lines.push("not-a-phone,Bad,,"); // one rejected row at the end
  const { report } = await importCsv(t, ws, lines.join("\n") + "\n");
  expect(report).toMatchObject({ status: "completed", total: ROWS + 1, processed: ROWS + 1, created: ROWS, updated: 0, rejected: 1 });
  expect(report.errors).toEqual([{ row: ROWS + 2, message: expect.any(String) }]);
  const rows = parse(await exportCsv(t, ws)) as string[][];
  expect(rows[0]).toEqual(["phone", "name", "tags", "optedOut", "createdAt", "city"]);
  const body = rows.slice(1);
  expect(body.length).toBe(ROWS);
  expect(new Set(body.map((r) => r[0])).size).toBe(ROWS);
  const byPhone = new Map(body.map((r) => [r[0], r]));
  for (const i of [0, 1, 499, 500, 1999, ROWS - 1]) {
    const r = byPhone.get(`9180${String(i).padStart(8, "0")}`)!;
    expect([r[1], r[2]!.split(";").sort(), r[5]]).toEqual([`Person ${i}`, ["all", i % 2 ? "odd" : "even"], i % 3 ? "Pune" : "Delhi"]);
  }
  // importing the same file again changes nothing and creates nothing
  const again = await importCsv(t, ws, lines.join("\n") + "\n");
  expect(again.report).toMatchObject({ status: "completed", created: 0, updated: ROWS, rejected: 1 });
}, 120_000);

test("no import transaction applied more than a read batch of rows, no export pull read more than its batch (counted, not timed)", () => {
  expect(largestSlice("contacts.import")).toBeGreaterThan(0);
  expect(largestSlice("contacts.import")).toBeLessThanOrEqual(500);
  expect(largestSlice("contacts.export")).toBeGreaterThan(0);
  expect(largestSlice("contacts.export")).toBeLessThanOrEqual(EXPORT_BATCH);
});
