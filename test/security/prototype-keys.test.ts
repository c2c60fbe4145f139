// User-chosen keys that an ordinary object already has (constructor, toString, hasOwnProperty)
// or that replace its prototype (__proto__): through the API, the CSV import and export, query
// strings, and campaign variables. Each is a key like any other, or a clear 400.
import { afterAll, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";
import { connectedSession } from "../modules/messages/helpers.ts";
import { advanceUntil, campaign, campaignBody, newCampaign, simSent } from "../modules/campaigns/helpers.ts";
import { renderBody } from "../../src/modules/campaigns/variables.ts";
import { parsePairs } from "../../web/src/ui/text.ts";

const dataDir = mkdtempSync(join(tmpdir(), "parley-proto-"));
const t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { dataDir, autoReceipts: false } });
afterAll(() => t.close());

const NAMES = ["constructor", "toString", "hasOwnProperty", "valueOf"];

async function runImport(ws: TestWorkspace, file: string) {
  const form = new FormData();
  form.append("file", new File([file], "contacts.csv", { type: "text/csv" }));
  const r = await t.request("POST", "/api/v1/contacts/import", { token: ws.owner.token, body: form });
  expect(r.status).toBe(202);
  await t.deps.jobs.runDue();
  return (await t.request("GET", `/api/v1/contacts/imports/${r.body.data.id}`, { token: ws.owner.token })).body.data;
}
const exportCsv = async (ws: TestWorkspace) => {
  const res = await t.app.handle(new Request("http://localhost/api/v1/contacts/export", { headers: { authorization: `Bearer ${ws.owner.token}` } }));
  expect(res.status).toBe(200);
  return res.text();
};

test("attributes named like Object's methods are kept as given; one contact with them does not break the workspace's export", async () => {
  const ws = await createWorkspace(t);
  const attributes = Object.fromEntries(NAMES.map((k) => [k, `v-${k}`]));
  const a = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919845091001", name: "Has", attributes } });
  expect(a.status).toBe(201);
  expect(a.body.data.attributes).toEqual(attributes);
  const b = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919845091002", name: "Lacks", attributes: { city: "Pune" } } });
  expect(b.status).toBe(201);
  const rows = parse(await exportCsv(ws)) as string[][];
  const header = rows[0]!;
  for (const k of NAMES) expect(header).toContain(k);
  const byPhone = new Map(rows.slice(1).map((r) => [r[0], r]));
  for (const k of NAMES) {
    expect(byPhone.get("919845091001")![header.indexOf(k)]).toBe(`v-${k}`);
    expect(byPhone.get("919845091002")![header.indexOf(k)]).toBe(""); // not "function Object() { [native code] }"
  }
  // and the export imports back into another workspace unchanged
  const other = await createWorkspace(t);
  expect(await runImport(other, await exportCsv(ws))).toMatchObject({ status: "completed", created: 2, rejected: 0 });
  const back = (await t.request("GET", "/api/v1/contacts?search=919845091001", { token: other.owner.token })).body.data[0];
  expect(back.attributes).toEqual(attributes);
  const lacks = (await t.request("GET", "/api/v1/contacts?search=919845091002", { token: other.owner.token })).body.data[0];
  expect(lacks.attributes).toEqual({ city: "Pune" });
});

test("an attribute named __proto__ is refused with 400 naming it, in a JSON body and in a CSV header; nothing is stored", async () => {
  const ws = await createWorkspace(t);
  const r = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: '{"phone":"919845091011","attributes":{"__proto__":"x","city":"Pune"}}' });
  expect(r.status).toBe(400);
  expect(r.body.code).toBe("VALIDATION_ERROR");
  expect(JSON.stringify(r.body.errors)).toContain("__proto__");
  const patchTarget = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919845091012" } });
  const p = await t.request("PATCH", `/api/v1/contacts/${patchTarget.body.data.id}`, { token: ws.owner.token, body: '{"attributes":{"__proto__":{"polluted":"yes"}}}' });
  expect(p.status).toBe(400);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const rep = await runImport(ws, "phone,__proto__\n919845091013,x\n");
  expect(rep).toMatchObject({ status: "failed" });
  expect(rep.error).toContain("__proto__");
  // a column named constructor is an attribute, not a mistaken known column
  const ok = await runImport(ws, "phone,constructor,toString\n919845091014,c,t\n");
  expect(ok).toMatchObject({ status: "completed", created: 1 });
  const c = (await t.request("GET", "/api/v1/contacts?search=919845091014", { token: ws.owner.token })).body.data[0];
  expect(c.attributes).toEqual({ constructor: "c", toString: "t" });
  const list = (await t.request("GET", "/api/v1/contacts", { token: ws.owner.token })).body.data as { phone: string }[];
  expect(list.map((x) => x.phone).sort()).toEqual(["919845091012", "919845091014"]);
});

test("query strings with these names are ordinary parameters or a 400, never a 500", async () => {
  const ws = await createWorkspace(t);
  for (const k of ["__proto__", ...NAMES]) {
    for (const path of [`/api/v1/contacts?${k}=1`, `/api/v1/contacts?search=${k}`, `/api/v1/contacts?tag=${k}`, `/api/v1/contacts/export?${k}[x]=1`]) {
      const r = await t.request("GET", path, { token: ws.owner.token });
      expect(`${path} ${r.status}`).toMatch(/ (200|400)$/);
    }
  }
});

test("{{attributes.constructor}} and friends: the contact's own value, else the default (not Object's function)", async () => {
  const values = { name: null, pushName: null, phone: "919845091021", attributes: { toString: "mine" } };
  expect(renderBody("{{attributes.constructor|friend}} {{attributes.toString|x}} {{attributes.hasOwnProperty}}!", values)).toBe("friend mine !");
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const has = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919845091022", attributes: { constructor: "Builder" } } });
  const lacks = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919845091023" } });
  const id = await newCampaign(t, ws, campaignBody([s.id], [has.body.data.id, lacks.body.data.id], { message: { type: "text", body: "Hi {{attributes.constructor|there}} / {{attributes.valueOf|v}}" } }));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 500);
  const texts = new Map(simSent(dataDir).map((m) => [m.to, m.text]));
  expect(texts.get("919845091022")).toBe("Hi Builder / v");
  expect(texts.get("919845091023")).toBe("Hi there / v");
});

test("the dashboard's key=value editor keeps __proto__ as a key (the server then names it) instead of replacing the object's prototype", () => {
  const pairs = parsePairs("__proto__=x\nconstructor=c\ncity=Pune");
  expect(Object.keys(pairs)).toEqual(["__proto__", "constructor", "city"]);
  expect(JSON.parse(JSON.stringify(pairs))).toEqual(JSON.parse('{"__proto__":"x","constructor":"c","city":"Pune"}'));
});
