import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { linkSession, newSession } from "../sessions/helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let id: string;
beforeAll(async () => {
  // a slow network: the answer must still wait for the stored row
  t = await createTestApp({ sim: { latencyMs: 40 } });
  ws = await createWorkspace(t);
  id = await newSession(t, ws, "sim");
  await linkSession(t, ws, id, "919812345678");
});
afterAll(() => t.close());

test("sim inbound answers after the message is stored, with the stored message's id", async () => {
  const r = await t.request("POST", `/api/sim/sessions/${id}/inbound`, { token: ws.owner.token, body: { from: "919800000001", text: "stored first" } });
  expect(r.status).toBe(200);
  expect(r.body.data.networkMessageId).toMatch(/^SIMIN/);
  expect(r.body.data.messageId).toMatch(/^[0-9a-f-]{36}$/);
  // readable at once, no polling
  const m = await t.request("GET", `/api/v1/messages/${r.body.data.messageId}`, { token: ws.owner.token });
  expect(m.status).toBe(200);
  expect(m.body.data).toMatchObject({ id: r.body.data.messageId, direction: "inbound", body: "stored first", sessionId: id });
});

test("several at once: each answer names its own stored message", async () => {
  const texts = ["one", "two", "three", "four"];
  const rs = await Promise.all(texts.map((text) => t.request("POST", `/api/sim/sessions/${id}/inbound`, { token: ws.owner.token, body: { from: "919800000002", text } })));
  for (const [i, r] of rs.entries()) {
    expect(r.status).toBe(200);
    const row = await t.deps.db.prepare("SELECT body, network_message_id AS nid FROM messages WHERE id = ?").get(r.body.data.messageId);
    expect(row).toEqual({ body: texts[i]!, nid: r.body.data.networkMessageId });
  }
});
