import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestMember, type TestWorkspace } from "../../helpers/fixtures.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";
import { connectedSession, drain } from "../messages/helpers.ts";

// /api/v1/quick-replies: owners and admins manage, every member reads, a send may name one.

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let admin: TestMember;
let agent: TestMember;
let viewer: TestMember;
let s1: { id: string; phone: string };
const dataDir = mkdtempSync(join(tmpdir(), "parley-quick-"));
const path = "/api/v1/quick-replies";

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { dataDir } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  admin = await ws.member("admin");
  agent = await ws.member("agent");
  viewer = await ws.member("viewer");
  s1 = await connectedSession(t, ws);
});
afterAll(() => t.close());

describe("quick replies CRUD", () => {
  let thanks: any;

  test("owners and admins create; the shortcut is stored lower case without its slash", async () => {
    const r = await t.request("POST", path, { token: ws.owner.token, body: { shortcut: "/Thanks", body: "Thanks {{name|friend}}! We ship to {{attributes.city|your city}}." } });
    expect(r.status).toBe(201);
    thanks = r.body.data;
    expect(thanks).toMatchObject({ shortcut: "thanks", body: "Thanks {{name|friend}}! We ship to {{attributes.city|your city}}." });
    const b = await t.request("POST", path, { token: admin.token, body: { shortcut: "hours", body: "We are open 9 to 6." } });
    expect(b.status).toBe(201);
    expect((await t.request("POST", path, { token: admin.token, body: { shortcut: "thx-2", body: "Thank you!" } })).status).toBe(201);
  });

  test("agents and viewers read but may not manage (403)", async () => {
    for (const m of [agent, viewer]) {
      expect((await t.request("GET", path, { token: m.token })).body.pagination.total).toBe(3);
      expect((await t.request("GET", `${path}/${thanks.id}`, { token: m.token })).status).toBe(200);
      for (const [method, p, body] of [
        ["POST", path, { shortcut: "mine", body: "x" }],
        ["PATCH", `${path}/${thanks.id}`, { body: "changed" }],
        ["DELETE", `${path}/${thanks.id}`, undefined],
      ] as const) {
        const r = await t.request(method, p, { token: m.token, body });
        expect(r.status, `${method} ${m.email}`).toBe(403);
        expect(r.body.code).toBe("FORBIDDEN");
      }
    }
    expect((await t.request("GET", `${path}/${thanks.id}`, { token: ws.owner.token })).body.data.body).toContain("Thanks");
  });

  test("list by shortcut, and by prefix (what follows / in the composer)", async () => {
    const all = await t.request("GET", path, { token: agent.token });
    expect(all.body.data.map((q: { shortcut: string }) => q.shortcut)).toEqual(["hours", "thanks", "thx-2"]);
    const th = await t.request("GET", `${path}?prefix=/th`, { token: agent.token });
    expect(th.body.data.map((q: { shortcut: string }) => q.shortcut)).toEqual(["thanks", "thx-2"]);
    expect(th.body.pagination.total).toBe(2);
  });

  test("a taken shortcut is 409; bad input 400 naming the field", async () => {
    const dup = await t.request("POST", path, { token: ws.owner.token, body: { shortcut: "THANKS", body: "again" } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("CONFLICT");
    const hours = (await t.request("GET", `${path}?prefix=hours`, { token: ws.owner.token })).body.data[0];
    const taken = await t.request("PATCH", `${path}/${hours.id}`, { token: ws.owner.token, body: { shortcut: "thanks" } });
    expect(taken.status).toBe(409);
    for (const [body, field] of [
      [{ shortcut: "two words", body: "x" }, "shortcut"],
      [{ shortcut: "", body: "x" }, "shortcut"],
      [{ shortcut: "x".repeat(33), body: "x" }, "shortcut"],
      [{ shortcut: "ok" }, "body"],
      [{ shortcut: "ok", body: "  " }, "body"],
      [{ shortcut: "ok", body: "Hi {{nickname}}" }, "body"],
      [{ shortcut: "ok", body: "Hi {{name" }, "body"],
    ] as const) {
      const r = await t.request("POST", path, { token: ws.owner.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.errors[field], JSON.stringify(body)).toBeDefined();
    }
    expect((await t.request("PATCH", `${path}/${hours.id}`, { token: ws.owner.token, body: {} })).status).toBe(400);
    expect((await t.request("GET", path, { token: ws.owner.token })).body.pagination.total).toBe(3);
  });

  test("update and delete", async () => {
    const x = await t.request("PATCH", `${path}/${thanks.id}`, { token: admin.token, body: { body: "Thanks {{name|friend}}! We ship to {{attributes.city|your city}}." , shortcut: "/thanks" } });
    expect(x.status).toBe(200);
    const thx = (await t.request("GET", `${path}?prefix=thx`, { token: ws.owner.token })).body.data[0];
    expect((await t.request("DELETE", `${path}/${thx.id}`, { token: admin.token })).status).toBe(200);
    expect((await t.request("GET", `${path}/${thx.id}`, { token: admin.token })).status).toBe(404);
    expect((await t.request("DELETE", `${path}/${thx.id}`, { token: admin.token })).status).toBe(404);
  });

  test("another workspace sees none of them and their ids answer 404", async () => {
    expect((await t.request("GET", path, { token: other.owner.token })).body.data).toEqual([]);
    for (const [method, body] of [["GET", undefined], ["PATCH", { body: "mine now" }], ["DELETE", undefined]] as const) {
      const r = await t.request(method, `${path}/${thanks.id}`, { token: other.owner.token, body });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("NOT_FOUND");
    }
    // the same shortcut is free in another workspace
    expect((await t.request("POST", path, { token: other.owner.token, body: { shortcut: "thanks", body: "Theirs" } })).status).toBe(201);
  });

  test("a send with quickReplyId carries the body filled for the recipient's contact", async () => {
    const c = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919888800001", name: "Meera", attributes: { City: "Pune" } } });
    expect(c.status).toBe(201);
    const send = (to: string, extra: Record<string, unknown>, token = agent.token) =>
      t.request("POST", "/api/v1/messages/send", { token, body: { session_id: s1.id, to, ...extra } });
    expect((await send("919888800001", { quickReplyId: thanks.id })).status).toBe(202);
    expect((await send("919888800002", { quickReplyId: thanks.id })).status).toBe(202);
    await drain(t);
    const texts = new Map(readSimSent(dataDir).map((x) => [x.to, x.text]));
    expect(texts.get("919888800001")).toBe("Thanks Meera! We ship to Pune.");
    expect(texts.get("919888800002")).toBe("Thanks friend! We ship to your city.");
    // the stored message holds the text sent
    const list = await t.request("GET", "/api/v1/messages?phone=919888800001", { token: ws.owner.token });
    expect(list.body.data[0].body).toBe("Thanks Meera! We ship to Pune.");
  });

  test("a send with quickReplyId: with body 400, another workspace's or unknown 404, viewers 403", async () => {
    const both = await t.request("POST", "/api/v1/messages/send", { token: agent.token, body: { session_id: s1.id, to: "919888800001", body: "hi", quickReplyId: thanks.id } });
    expect(both.status).toBe(400);
    expect(both.body.errors.quickReplyId).toBeDefined();
    const theirs = (await t.request("GET", path, { token: other.owner.token })).body.data[0];
    for (const id of [theirs.id, Bun.randomUUIDv7()]) {
      const r = await t.request("POST", "/api/v1/messages/send", { token: agent.token, body: { session_id: s1.id, to: "919888800001", quickReplyId: id } });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("NOT_FOUND");
    }
    const bad = await t.request("POST", "/api/v1/messages/send", { token: agent.token, body: { session_id: s1.id, to: "919888800001", quickReplyId: "x" } });
    expect(bad.body.errors.quickReplyId).toBeDefined();
    const v = await t.request("POST", "/api/v1/messages/send", { token: viewer.token, body: { session_id: s1.id, to: "919888800001", quickReplyId: thanks.id } });
    expect(v.status).toBe(403);
  });
});
