import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { png, b64 } from "../media/samples.ts";
import { connectedSession, createApiKey } from "./helpers.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let keyA: string;
let keyB: string;
let sessionA: { id: string; phone: string };
let sessionB: { id: string; phone: string };
const sent: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, publicUrl: "https://parley.test" } });
  a = await createWorkspace(t);
  b = await createWorkspace(t);
  keyA = await createApiKey(t, a);
  keyB = await createApiKey(t, b);
  sessionA = await connectedSession(t, a);
  sessionB = await connectedSession(t, b);
  for (const [i, to] of ["919811111111", "919822222222", "919811111111"].entries()) {
    const r = await t.request("POST", "/api/external/messages/send", { apiKey: keyA, body: { session_id: sessionA.id, to, body: `out ${i}` } });
    expect(r.status).toBe(202);
    sent.push(r.body.data.id);
  }
  const img = await t.request("POST", "/api/external/messages/send", {
    apiKey: keyA,
    body: { session_id: sessionA.id, to: "919833333333", type: "image", media: b64(png()), filename: "p.png" },
  });
  sent.push(img.body.data.id);
  // inbound: a contact of A writes; another of B
  await t.request("POST", `/api/sim/sessions/${sessionA.id}/inbound`, { token: a.owner.token, body: { from: "919844444444", text: "hello A" } });
  await t.request("POST", `/api/sim/sessions/${sessionB.id}/inbound`, { token: b.owner.token, body: { from: "919855555555", text: "hello B" } });
});
afterAll(() => t.close());

describe("GET /api/external/messages", () => {
  test("the key's workspace only, newest first, with the dashboard list's shape", async () => {
    const r = await t.request("GET", "/api/external/messages", { apiKey: keyA });
    expect(r.status).toBe(200);
    expect(r.body.data.map((m: any) => m.body ?? m.text ?? null)).not.toContain("hello B");
    expect(r.body.data).toHaveLength(5);
    const jwt = await t.request("GET", "/api/v1/messages", { token: a.owner.token });
    expect(r.body.data.map((m: any) => m.id)).toEqual(jwt.body.data.map((m: any) => m.id));
    expect(r.body.pagination).toMatchObject({ limit: 20, hasMore: false });
    const theirs = await t.request("GET", "/api/external/messages", { apiKey: keyB });
    expect(theirs.body.data).toHaveLength(1);
  });

  test("filters and keyset cursors as on GET /api/v1/messages", async () => {
    const inbound = await t.request("GET", "/api/external/messages?direction=inbound", { apiKey: keyA });
    expect(inbound.body.data).toHaveLength(1);
    expect(inbound.body.data[0].direction).toBe("inbound");
    const byPhone = await t.request("GET", "/api/external/messages?phone=919811111111", { apiKey: keyA });
    expect(byPhone.body.data.map((m: any) => m.id).sort()).toEqual([sent[0], sent[2]].sort());
    const page1 = await t.request("GET", "/api/external/messages?limit=2", { apiKey: keyA });
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.pagination.hasMore).toBe(true);
    const page2 = await t.request("GET", `/api/external/messages?limit=2&before=${page1.body.pagination.nextCursor}`, { apiKey: keyA });
    expect(page2.body.data).toHaveLength(2);
    expect(page2.body.data[0].id < page1.body.data[1].id).toBe(true);
    // another workspace's session simply matches nothing
    const foreign = await t.request("GET", `/api/external/messages?sessionId=${sessionB.id}`, { apiKey: keyA });
    expect(foreign.body.data).toEqual([]);
  });

  test("media links point where the key can fetch them", async () => {
    const r = await t.request("GET", "/api/external/messages?limit=100", { apiKey: keyA });
    const img = r.body.data.find((m: any) => m.id === sent[3]);
    expect(img.mediaUrl).toStartWith("https://parley.test/api/external/media/");
  });

  test("bad query: 400 naming the field; a JWT or no key: 401", async () => {
    const bad = await t.request("GET", "/api/external/messages?limit=101", { apiKey: keyA });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.limit).toBeDefined();
    expect((await t.request("GET", "/api/external/messages?direction=sideways", { apiKey: keyA })).body.errors.direction).toBeDefined();
    expect((await t.request("GET", "/api/external/messages", { token: a.owner.token })).status).toBe(401);
    expect((await t.request("GET", "/api/external/messages")).status).toBe(401);
  });
});

describe("GET /api/external/contacts", () => {
  test("list and get by id, the key's workspace only; another workspace's contact is 404", async () => {
    const list = await t.request("GET", "/api/external/contacts", { apiKey: keyA });
    expect(list.status).toBe(200);
    const phones = list.body.data.map((c: any) => c.phone);
    expect(phones).toContain("919844444444");
    expect(phones).not.toContain("919855555555");
    expect(list.body.pagination).toMatchObject({ page: 1, limit: 20 });
    const mine = list.body.data.find((c: any) => c.phone === "919844444444");
    const one = await t.request("GET", `/api/external/contacts/${mine.id}`, { apiKey: keyA });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(mine);

    const theirs = (await t.request("GET", "/api/external/contacts", { apiKey: keyB })).body.data;
    const foreign = theirs.find((c: any) => c.phone === "919855555555");
    expect(foreign).toBeDefined();
    const cross = await t.request("GET", `/api/external/contacts/${foreign.id}`, { apiKey: keyA });
    expect(cross.status).toBe(404);
    expect(cross.body.code).toBe("NOT_FOUND");
    expect((await t.request("GET", `/api/external/contacts/not-a-uuid`, { apiKey: keyA })).status).toBe(400);
  });

  test("read-only, key only", async () => {
    expect((await t.request("GET", "/api/external/contacts", { token: a.owner.token })).status).toBe(401);
    const post = await t.request("POST", "/api/external/contacts", { apiKey: keyA, body: { phone: "919866666666" } });
    // the path exists for reading only: 405 naming the methods it takes
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });
});
