import { afterAll, beforeAll, expect, test } from "bun:test";
import { pruneIdempotencyKeys } from "../../../src/modules/messages/idempotency.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { b64, png } from "../media/samples.ts";
import { connectedSession, createApiKey, drain } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
});
afterAll(() => t.close());

const send = (key: string, body: Record<string, unknown>, auth: { token?: string; apiKey?: string } = { token: ws.owner.token }) =>
  t.request("POST", "/api/v1/messages/send", { ...auth, headers: { "idempotency-key": key }, body: { session_id: session.id, to: "919876543210", ...body } });
const onWire = (text: string) => t.sim.sent.filter((s) => s.message.text === text).length;
const rows = async (text: string) => ((await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE body = ?").get(text)) as { n: number }).n;

test("a repeated request with the same key returns the first answer and sends once", async () => {
  const first = await send("key-1", { body: "once" });
  expect(first.status).toBe(202);
  expect(first.headers.get("idempotent-replayed")).toBeNull();
  await drain(t);
  const again = await send("key-1", { body: "once" });
  expect(again.status).toBe(202);
  expect(again.body.data).toEqual(first.body.data);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  // the same key from another credential of the workspace is the same request too
  const key = await createApiKey(t, ws);
  const byKey = await send("key-1", { body: "once" }, { apiKey: key });
  expect(byKey.body.data).toEqual(first.body.data);
  await drain(t);
  expect(onWire("once")).toBe(1);
  expect(await rows("once")).toBe(1);
});

test("concurrent requests with one key create one message", async () => {
  const results = await Promise.all(Array.from({ length: 8 }, () => send("key-concurrent", { type: "image", body: "together", media: b64(png()) })));
  for (const r of results) expect(r.status).toBe(202);
  expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
  await drain(t);
  expect(onWire("together")).toBe(1);
  expect(await rows("together")).toBe(1);
  // files written by the losers were removed
  expect((await t.deps.db.prepare("SELECT count(*) AS n FROM media WHERE source = 'base64'").get() as { n: number }).n).toBe(1);
});

test("the same key with a different body is 409 CONFLICT and sends nothing", async () => {
  await send("key-2", { body: "original" });
  const r = await send("key-2", { body: "changed" });
  expect(r.status).toBe(409);
  expect(r.body.code).toBe("CONFLICT");
  await drain(t);
  expect(onWire("changed")).toBe(0);
});

test("keys are per workspace", async () => {
  const other = await createWorkspace(t);
  const s = await connectedSession(t, other);
  await send("shared-key", { body: "ws one" });
  const r = await t.request("POST", "/api/v1/messages/send", {
    token: other.owner.token,
    headers: { "idempotency-key": "shared-key" },
    body: { session_id: s.id, to: "919876543210", body: "ws two" },
  });
  expect(r.status).toBe(202);
  expect(await rows("ws two")).toBe(1);
});

test("a refused request is not remembered: fixing it and retrying with the key works", async () => {
  await t.deps.db.prepare("UPDATE chat_sessions SET status = 'disconnected' WHERE id = ?").run(session.id);
  const refused = await send("key-3", { body: "after reconnect" });
  expect(refused.status).toBe(502);
  await t.deps.db.prepare("UPDATE chat_sessions SET status = 'connected' WHERE id = ?").run(session.id);
  const ok = await send("key-3", { body: "after reconnect" });
  expect(ok.status).toBe(202);
});

test("after 24 hours the key is forgotten and pruned", async () => {
  const first = await send("key-4", { body: "day one" });
  t.clock.advance(24 * 3600_000 + 1);
  const token = await accessToken(t, ws.owner.userId, ws.id, "owner");
  expect(await pruneIdempotencyKeys(t.deps)).toBeGreaterThan(0);
  const next = await send("key-4", { body: "day one" }, { token });
  expect(next.status).toBe(202);
  expect(next.body.data.id).not.toBe(first.body.data.id);
});
