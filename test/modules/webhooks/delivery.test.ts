import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, testCert, type Receiver } from "../../net/receiver.ts";
import { connectSession, createHook, deliveries, emit, webhookApp } from "./helpers.ts";

// A real HTTPS receiver on loopback whose self-signed certificate the app trusts through
// the operator's webhookCaFile; plain HTTP stays refused.
let t: TestApp;
let ws: TestWorkspace;
let rx: Receiver;

beforeAll(async () => {
  rx = startReceiver({ tls: true });
  t = await webhookApp({ webhookAllowHttp: false, webhookCaFile: testCert().certFile });
  ws = await createWorkspace(t);
  await connectSession(t, ws.id);
});
afterAll(async () => {
  rx.stop();
  await t.close();
});

describe("delivery over HTTPS", () => {
  test("every header is set and both signatures verify with independent implementations", async () => {
    const hook = await createHook(t, ws, `${rx.url}/in`, ["message_received"]);
    const data = { sessionId: "s1", from: "919811111111", messageId: "m1", text: "héllo ✓", content: "héllo ✓", mediaUrl: null };
    const e = await emit(t, ws.id, "message_received", data);
    expect(await t.services.webhooks.runDue()).toBe(1);
    expect(rx.received.length).toBe(1);
    const got = rx.received[0]!;
    const h = got.headers;
    const [row] = await deliveries(t, hook.id);

    expect(got.method).toBe("POST");
    expect(got.path).toBe("/in");
    expect(JSON.parse(got.body)).toEqual({ event: "message_received", timestamp: e.timestamp, data });
    expect(h.get("content-type")).toBe("application/json");
    expect(h.get("user-agent")).toBe(`Parley-Webhooks/${t.deps.version}`);
    expect(h.get("x-webhook-event")).toBe("message_received");
    expect(h.get("x-webhook-delivery-id")).toBe(row.id);
    expect(h.get("x-webhook-attempt")).toBe("1");
    expect(h.get("webhook-id")).toBe(row.id);
    const ts = Math.floor(t.clock.now().getTime() / 1000);
    expect(h.get("x-webhook-timestamp")).toBe(String(ts));
    expect(h.get("webhook-timestamp")).toBe(String(ts));
    expect(h.get("x-webhook-test")).toBeNull();

    // X-Webhook-Signature: hex HMAC-SHA256 of the raw body keyed with the secret, compared in constant time
    const expected = createHmac("sha256", hook.secret).update(got.body).digest();
    const given = Buffer.from(h.get("x-webhook-signature")!, "hex");
    expect(given.length).toBe(32);
    expect(timingSafeEqual(given, expected)).toBe(true);

    // Standard Webhooks: the key is the UTF-8 bytes of the hex secret (docs/webhooks.md)
    const wh = new Webhook(Buffer.from(hook.secret, "utf8").toString("base64"));
    const headers = { "webhook-id": h.get("webhook-id")!, "webhook-timestamp": h.get("webhook-timestamp")!, "webhook-signature": h.get("webhook-signature")! };
    expect(wh.verify(got.body, headers)).toEqual({ event: "message_received", timestamp: e.timestamp, data });
    // and a wrong secret does not verify
    const wrong = new Webhook(Buffer.from("0".repeat(64), "utf8").toString("base64"));
    expect(() => wrong.verify(got.body, headers)).toThrow();

    const hist = await t.request("GET", `/api/webhooks/${hook.id}/history`, { token: ws.owner.token });
    expect(hist.status).toBe(200);
    expect(hist.body.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(hist.body.data[0]).toMatchObject({ id: row.id, eventType: "message_received", status: "success", responseStatus: 200, attempts: 1, error: null, nextAttemptAt: null, responseBody: "ok", isTest: false });
    expect(hist.body.data[0].deliveredAt).toBe(t.clock.now().toISOString());
    expect(typeof hist.body.data[0].durationMs).toBe("number");
  });

  test("fan-out: each subscribed webhook gets its own delivery of the same bytes; others none", async () => {
    const a = await createHook(t, ws, `${rx.url}/a`, ["message_sent", "message_read"]);
    const b = await createHook(t, ws, `${rx.url}/b`, ["message.sent"]);
    const c = await createHook(t, ws, `${rx.url}/c`, ["campaign_progress"]);
    rx.received.length = 0;
    await emit(t, ws.id, "message_sent", { sessionId: "s", to: "91999", messageId: "m9" });
    await t.services.webhooks.runDue();
    expect(rx.received.map((r) => r.path).sort()).toEqual(["/a", "/b"]);
    expect(rx.received[0]!.body).toBe(rx.received[1]!.body);
    expect(rx.received[0]!.headers.get("x-webhook-delivery-id")).not.toBe(rx.received[1]!.headers.get("x-webhook-delivery-id"));
    expect((await deliveries(t, a.id))[0].event_id).toBe((await deliveries(t, b.id))[0].event_id);
    expect((await deliveries(t, c.id))).toEqual([]);
  });

  test("a plain-HTTP URL is refused at save time when only HTTPS is allowed", async () => {
    const r = await t.request("POST", "/api/webhooks", { token: ws.owner.token, body: { name: "x", url: "http://127.0.0.1:9/x", events: ["message_sent"] } });
    expect(r.status).toBe(400);
    expect(r.body.errors.url).toContain("https");
  });
});

describe("the outbox is part of the publishing transaction", () => {
  test("a rolled-back change leaves no delivery; a committed one leaves exactly one per webhook", async () => {
    const hook = await createHook(t, ws, `${rx.url}/tx`, ["message_failed"]);
    expect(
      t.deps.db.tx(async () => {
        await t.deps.bus.publish(ws.id, "message_failed", { sessionId: "s", messageId: "m", to: "1", error: { code: "x", message: "y" } });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect((await deliveries(t, hook.id))).toEqual([]);
    await emit(t, ws.id, "message_failed", { sessionId: "s", messageId: "m", to: "1", error: { code: "x", message: "y" } });
    const rows = await deliveries(t, hook.id);
    expect(rows.length).toBe(1);
    expect(rows[0]).toMatchObject({ status: "pending", attempts: 0, event_type: "message_failed" });
  });

  test("dashboard-only events (session_qr, session_status) create no deliveries", async () => {
    const before = ((await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries").get()) as { n: number }).n;
    await emit(t, ws.id, "session_qr", { sessionId: "s", qr: "x" });
    await emit(t, ws.id, "session_status", { sessionId: "s", status: "connected" });
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM webhook_deliveries").get()) as { n: number }).n).toBe(before);
  });

  test("a payload over 256 KiB is recorded as failed with the reason, never sent", async () => {
    const hook = await createHook(t, ws, `${rx.url}/big`, ["message_received"]);
    rx.received.length = 0;
    await emit(t, ws.id, "message_received", { sessionId: "s", from: "1", messageId: "big", text: "x".repeat(300 * 1024) });
    await t.services.webhooks.runDue();
    expect(rx.received.filter((r) => r.path === "/big")).toEqual([]);
    const hist = await t.request("GET", `/api/webhooks/${hook.id}/history`, { token: ws.owner.token });
    expect(hist.body.data[0]).toMatchObject({ status: "failed", attempts: 0 });
    expect(hist.body.data[0].error).toContain("262144");
  });
});
