import { expect } from "bun:test";
import type { TestApp } from "../../helpers/app.ts";
import type { TestWorkspace } from "../../helpers/fixtures.ts";

/** Uploads a CSV through the API, runs the import job, and returns how many jobs ran and the import's report. */
export async function importCsv(t: TestApp, ws: TestWorkspace, file: string | Uint8Array<ArrayBuffer>) {
  const form = new FormData();
  form.append("file", new File([file], "contacts.csv", { type: "text/csv" }));
  const r = await t.request("POST", "/api/v1/contacts/import", { token: ws.owner.token, body: form });
  expect(r.status).toBe(202);
  const runs = await t.deps.jobs.runDue();
  return { runs, report: (await t.request("GET", `/api/v1/contacts/imports/${r.body.data.id}`, { token: ws.owner.token })).body.data };
}

/** The workspace's contacts as the export route writes them. */
export const exportCsv = async (t: TestApp, ws: TestWorkspace) =>
  (await t.app.handle(new Request("http://localhost/api/v1/contacts/export", { headers: { authorization: `Bearer ${ws.owner.token}` } }))).text();
