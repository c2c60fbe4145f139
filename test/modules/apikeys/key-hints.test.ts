import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

// A script writer's first calls with an API key: a key in the wrong header is told where it
// goes, and the send route takes the session under either of its names.

let t: TestApp;
let ws: TestWorkspace;
let key: string;
let session: string;

beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  key = (await t.request("POST", "/api/api-keys", { token: ws.owner.token, body: { name: "script" } })).body.data.key;
  session = (await t.request("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name: "main" } })).body.data.id;
  await t.request("POST", `/api/v1/chatapp/${session}/connect`, { token: ws.owner.token });
  await t.request("POST", `/api/sim/sessions/${session}/scan`, { token: ws.owner.token, body: { phoneNumber: "919800000001" } });
  for (let i = 0; i < 200; i++) {
    if ((await t.request("GET", `/api/v1/chatapp/${session}/status`, { token: ws.owner.token })).body.data.status === "connected") break;
    await Bun.sleep(5);
  }
});
afterAll(() => t.close());

const asBearer = (path: string, method = "GET", body?: unknown) => t.request(method, path, { headers: { authorization: `Bearer ${key}` }, body });

test("an API key sent as Authorization: Bearer answers 401 saying that keys go in X-API-Key", async () => {
  for (const r of [
    await asBearer("/api/external/sessions"),
    await asBearer("/api/v1/messages/send", "POST", { session_id: session, to: "919812345678", type: "text", body: "hi" }),
    await asBearer("/api/v1/contacts"),
  ]) {
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 401, code: "UNAUTHORIZED" });
    expect(r.body.message).toContain("X-API-Key");
  }
  // and nothing was sent
  expect((await t.request("GET", "/api/v1/messages", { token: ws.owner.token })).body.data).toEqual([]);
});

test("an API key on a route that takes only a dashboard login says where keys work", async () => {
  const r = await t.request("GET", "/api/v1/contacts", { apiKey: key });
  expect({ status: r.status, code: r.body.code }).toEqual({ status: 401, code: "UNAUTHORIZED" });
  expect(r.body.message).toContain("/api/external");
});

test("send takes session_id (documented) or sessionId (the name answers use); neither, or two different, is a 400 naming the field", async () => {
  const snake = await t.request("POST", "/api/v1/messages/send", { apiKey: key, body: { session_id: session, to: "919812345678", type: "text", body: "one" } });
  expect({ status: snake.status, sessionId: snake.body.data?.sessionId }).toEqual({ status: 202, sessionId: session });
  const camel = await t.request("POST", "/api/v1/messages/send", { apiKey: key, body: { sessionId: session, to: "919812345678", type: "text", body: "two" } });
  expect({ status: camel.status, sessionId: camel.body.data?.sessionId }).toEqual({ status: 202, sessionId: session });
  const same = await t.request("POST", "/api/v1/messages/send", { apiKey: key, body: { session_id: session, sessionId: session, to: "919812345678", body: "three" } });
  expect(same.status).toBe(202);
  const neither = await t.request("POST", "/api/v1/messages/send", { apiKey: key, body: { to: "919812345678", type: "text", body: "x" } });
  expect({ status: neither.status, fields: Object.keys(neither.body.errors ?? {}) }).toEqual({ status: 400, fields: ["session_id"] });
  const both = await t.request("POST", "/api/v1/messages/send", { apiKey: key, body: { session_id: session, sessionId: Bun.randomUUIDv7(), to: "919812345678", body: "x" } });
  expect({ status: both.status, fields: Object.keys(both.body.errors ?? {}) }).toEqual({ status: 400, fields: ["sessionId"] });
  const sent = (await t.request("GET", "/api/v1/messages", { token: ws.owner.token })).body.data.map((m: { body?: string; text?: string }) => m.body ?? m.text);
  expect(sent.sort()).toEqual(["one", "three", "two"]);
});
