import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, createApiKey } from "../messages/helpers.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
});
afterAll(() => t.close());

test("messagesPerMonth usage counts the workspace's sends (JWT and API key), not another's", async () => {
  const ws = await createWorkspace(t);
  const other = await createWorkspace(t);
  const session = await connectedSession(t, ws);
  const otherSession = await connectedSession(t, other);
  const key = await createApiKey(t, ws);
  for (let i = 0; i < 3; i++) {
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", type: "text", body: `m${i}` } });
    expect(r.status).toBe(202);
  }
  const byKey = await t.request("POST", "/api/external/messages/send", { apiKey: key, body: { session_id: session.id, to: "919876543210", type: "text", body: "k" } });
  expect(byKey.status).toBe(202);
  const o = await t.request("POST", "/api/v1/messages/send", { token: other.owner.token, body: { session_id: otherSession.id, to: "919876543210", type: "text", body: "x" } });
  expect(o.status).toBe(202);

  const r = await t.request("GET", "/api/billing/subscription", { token: ws.owner.token });
  expect(r.status).toBe(200);
  expect(r.body.data.usage.messagesPerMonth).toEqual({ used: 4, limit: 50_000 });
  const theirs = await t.request("GET", "/api/billing/subscription", { token: other.owner.token });
  expect(theirs.body.data.usage.messagesPerMonth.used).toBe(1);
});
