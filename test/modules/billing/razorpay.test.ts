import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMonths } from "../../../src/modules/billing/subscription.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { hmacHexWebCrypto, startFakeRazorpay, type FakeRazorpay } from "./fake-razorpay.ts";

const WEBHOOK_SECRET = "whsec_parley_test";
let rzp: FakeRazorpay;
let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;

beforeAll(async () => {
  rzp = startFakeRazorpay();
  t = await createTestApp({
    config: { razorpayKeyId: rzp.keyId, razorpayKeySecret: rzp.keySecret, razorpayWebhookSecret: WEBHOOK_SECRET, razorpayApiBase: rzp.url },
  });
  a = await createWorkspace(t);
  b = await createWorkspace(t);
});
afterAll(async () => {
  await t.close();
  rzp.stop();
});

const checkout = (ws: TestWorkspace, body: unknown = { planId: "pro", interval: "monthly" }) => t.request("POST", "/api/billing/checkout", { token: ws.owner.token, body });
const verify = (ws: TestWorkspace, body: unknown) => t.request("POST", "/api/billing/verify", { token: ws.owner.token, body });
const signedVerify = async (orderId: string, paymentId: string) => ({
  razorpay_order_id: orderId,
  razorpay_payment_id: paymentId,
  razorpay_signature: await hmacHexWebCrypto(rzp.keySecret, `${orderId}|${paymentId}`),
});
const webhook = async (payload: unknown, opts: { eventId?: string; signature?: string | null } = {}) => {
  const raw = typeof payload === "string" ? payload : JSON.stringify(payload, null, 2); // pretty: re-serialising would not match
  const headers: Record<string, string> = { "content-type": "application/json" };
  const sig = opts.signature === undefined ? await hmacHexWebCrypto(WEBHOOK_SECRET, raw) : opts.signature;
  if (sig !== null) headers["x-razorpay-signature"] = sig;
  if (opts.eventId) headers["x-razorpay-event-id"] = opts.eventId;
  return t.request("POST", "/api/billing/webhooks/razorpay", { body: raw, headers });
};
const state = async (wsId: string) => ({
  ws: await t.deps.db.prepare("SELECT plan_id, subscription_status, billing_interval, current_period_end, billing_provider FROM workspaces WHERE id = ?").get(wsId),
  invoices: await t.deps.db.prepare("SELECT * FROM invoices WHERE workspace_id = ? ORDER BY id").all(wsId),
  orders: await t.deps.db.prepare("SELECT * FROM billing_orders WHERE workspace_id = ? ORDER BY id").all(wsId),
});
const paymentCaptured = (orderId: string, paymentId: string, amount: number) => ({
  entity: "event",
  account_id: "acc_test",
  event: "payment.captured",
  contains: ["payment"],
  payload: { payment: { entity: { id: paymentId, entity: "payment", amount, currency: "INR", status: "captured", order_id: orderId, method: "upi" } } },
  created_at: 1767225600,
});

describe("checkout (Orders API)", () => {
  test("creates a Razorpay order for the plan's price with basic auth, receipt and notes", async () => {
    rzp.requests.length = 0;
    const r = await checkout(a, { planId: "pro", interval: "annual" });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ provider: "razorpay", keyId: rzp.keyId, amount: 5_999_000, currency: "INR", planId: "pro", interval: "annual" });
    expect(r.body.data.orderId).toStartWith("order_");
    const sent = rzp.requests[0]!;
    expect(sent.body).toEqual({ amount: 5_999_000, currency: "INR", receipt: r.body.data.receipt, notes: { workspaceId: a.id, planId: "pro", interval: "annual" } });
    expect(sent.body.receipt.length).toBeLessThanOrEqual(40);
    expect((await state(a.id)).orders).toHaveLength(1);
    expect(JSON.stringify(r.body)).not.toContain(rzp.keySecret);
  });

  test("bad plans and intervals are 400 naming the field; nothing is ordered", async () => {
    rzp.requests.length = 0;
    const unknown = await checkout(a, { planId: "platinum", interval: "monthly" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.planId).toBeDefined();
    const free = await checkout(a, { planId: "free", interval: "monthly" });
    expect(free.status).toBe(400);
    expect(free.body.errors.planId).toBeDefined();
    const interval = await checkout(a, { planId: "pro", interval: "weekly" });
    expect(interval.status).toBe(400);
    expect(interval.body.errors.interval).toBeDefined();
    expect(rzp.requests).toHaveLength(0);
  });

  test("only the owner pays (403 FORBIDDEN for admins)", async () => {
    const admin = await a.member("admin");
    const r = await t.request("POST", "/api/billing/checkout", { token: admin.token, body: { planId: "pro", interval: "monthly" } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("FORBIDDEN");
  });

  test("a provider failure is 502 and records no order", async () => {
    const before = (await state(a.id)).orders.length;
    rzp.failWith = 500;
    try {
      const r = await checkout(a);
      expect(r.status).toBe(502);
      expect(r.body.message).toContain("Payment provider");
    } finally {
      rzp.failWith = null;
    }
    expect((await state(a.id)).orders).toHaveLength(before);
  });
});

describe("payment verification", () => {
  test("a good signature activates the plan for one month and records an invoice", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws, { planId: "starter", interval: "monthly" })).body.data;
    const r = await verify(ws, await signedVerify(order.orderId, "pay_good0001"));
    expect(r.status).toBe(200);
    const now = t.clock.now().getTime();
    expect(r.body.data).toMatchObject({ planId: "starter", status: "active", interval: "monthly", provider: "razorpay" });
    expect(r.body.data.currentPeriodEnd).toBe(new Date(addMonths(now, 1)).toISOString());
    const inv = await t.request("GET", "/api/billing/invoices", { token: ws.owner.token });
    expect(inv.body.data).toHaveLength(1);
    expect(inv.body.data[0]).toMatchObject({ provider: "razorpay", paymentId: "pay_good0001", orderId: order.orderId, planId: "starter", amountPaise: 99_900, amount: 999, currency: "INR", status: "paid" });
  });

  test("annual: twelve months", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws, { planId: "growth", interval: "annual" })).body.data;
    const r = await verify(ws, await signedVerify(order.orderId, "pay_annual01"));
    expect(r.body.data.currentPeriodEnd).toBe(new Date(addMonths(t.clock.now().getTime(), 12)).toISOString());
  });

  test("a bad signature is 400 and changes nothing", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws)).body.data;
    const before = await state(ws.id);
    const good = await signedVerify(order.orderId, "pay_bad00001");
    for (const signature of [good.razorpay_signature.replace(/^./, (c) => (c === "0" ? "1" : "0")), "zz", good.razorpay_signature.slice(2)]) {
      const r = await verify(ws, { ...good, razorpay_signature: signature });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(r.body.errors.razorpay_signature).toBeDefined();
    }
    // a signature for another payment does not carry over
    const other = await signedVerify(order.orderId, "pay_other001");
    expect((await verify(ws, { ...good, razorpay_signature: other.razorpay_signature })).status).toBe(400);
    expect(await state(ws.id)).toEqual(before);
  });

  test("replaying a verified payment answers 200 and extends nothing", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws)).body.data;
    const body = await signedVerify(order.orderId, "pay_replay01");
    const first = await verify(ws, body);
    const after = await state(ws.id);
    const again = await verify(ws, body);
    expect(again.status).toBe(200);
    expect(again.body.data.currentPeriodEnd).toBe(first.body.data.currentPeriodEnd);
    expect(await state(ws.id)).toEqual(after);
    // another payment on an order that is paid already is refused
    expect((await verify(ws, await signedVerify(order.orderId, "pay_second01"))).status).toBe(409);
  });

  test("paying again for the plan in force extends from the current period end", async () => {
    const ws = await createWorkspace(t);
    const o1 = (await checkout(ws)).body.data;
    const first = await verify(ws, await signedVerify(o1.orderId, "pay_renew001"));
    const o2 = (await checkout(ws)).body.data;
    const second = await verify(ws, await signedVerify(o2.orderId, "pay_renew002"));
    expect(second.body.data.currentPeriodEnd).toBe(new Date(addMonths(Date.parse(first.body.data.currentPeriodEnd), 1)).toISOString());
  });

  test("another workspace's order is 404 and nothing changes", async () => {
    const order = (await checkout(b)).body.data;
    const before = [await state(a.id), await state(b.id)];
    const r = await verify(a, await signedVerify(order.orderId, "pay_cross001"));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("NOT_FOUND");
    expect([await state(a.id), await state(b.id)]).toEqual(before);
  });

  test("a missing field is 400 naming it", async () => {
    const r = await verify(a, { razorpay_order_id: "order_x", razorpay_payment_id: "pay_x" });
    expect(r.status).toBe(400);
    expect(r.body.errors.razorpay_signature).toBe("is required");
  });
});

describe("webhook", () => {
  test("payment.captured with a good signature over the raw body activates the order's plan", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws, { planId: "growth", interval: "monthly" })).body.data;
    const r = await webhook(paymentCaptured(order.orderId, "pay_hook0001", order.amount), { eventId: "evt_0001" });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ event: "payment.captured", duplicate: false, action: "activated" });
    expect((await state(ws.id)).ws).toMatchObject({ plan_id: "growth", subscription_status: "active", billing_interval: "monthly", billing_provider: "razorpay" });
    expect((await state(ws.id)).invoices).toHaveLength(1);
  });

  test("a replayed event (same event id) is acknowledged and changes nothing", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws)).body.data;
    const payload = paymentCaptured(order.orderId, "pay_hook0002", order.amount);
    expect((await webhook(payload, { eventId: "evt_0002" })).body.data.duplicate).toBe(false);
    const after = await state(ws.id);
    const again = await webhook(payload, { eventId: "evt_0002" });
    expect(again.status).toBe(200);
    expect(again.body.data.duplicate).toBe(true);
    expect(await state(ws.id)).toEqual(after);
  });

  test("webhook after verify (or order.paid after payment.captured) does not pay twice", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws)).body.data;
    await verify(ws, await signedVerify(order.orderId, "pay_hook0003"));
    const after = await state(ws.id);
    const r = await webhook(paymentCaptured(order.orderId, "pay_hook0003", order.amount), { eventId: "evt_0003" });
    expect(r.body.data).toMatchObject({ duplicate: false, action: "ignored" });
    const orderPaid = {
      event: "order.paid",
      payload: {
        order: { entity: { id: order.orderId, entity: "order", amount: order.amount, amount_paid: order.amount, status: "paid" } },
        payment: { entity: { id: "pay_hook0003", amount: order.amount, order_id: order.orderId, status: "captured" } },
      },
    };
    expect((await webhook(orderPaid, { eventId: "evt_0003b" })).body.data.action).toBe("ignored");
    expect(await state(ws.id)).toEqual(after);
  });

  test("a bad or missing signature is 400 and changes nothing", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws)).body.data;
    const payload = paymentCaptured(order.orderId, "pay_hook0004", order.amount);
    const raw = JSON.stringify(payload, null, 2);
    const before = await state(ws.id);
    const events = (await t.deps.db.prepare("SELECT count(*) AS n FROM billing_events").get());
    const wrongKey = await webhook(raw, { signature: await hmacHexWebCrypto("another secret", raw), eventId: "evt_0004" });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.errors["x-razorpay-signature"]).toBeDefined();
    // the signature of the re-serialised (compact) body does not match the bytes sent
    expect((await webhook(raw, { signature: await hmacHexWebCrypto(WEBHOOK_SECRET, JSON.stringify(payload)), eventId: "evt_0004" })).status).toBe(400);
    expect((await webhook(raw, { signature: null, eventId: "evt_0004" })).status).toBe(400);
    expect(await state(ws.id)).toEqual(before);
    expect((await t.deps.db.prepare("SELECT count(*) AS n FROM billing_events").get())).toEqual(events);
    // the same event, signed right, still works afterwards: refusals did not burn its id
    expect((await webhook(raw, { eventId: "evt_0004" })).body.data.action).toBe("activated");
  });

  test("without the event-id header the payload's id (else the body's hash) makes it idempotent", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws)).body.data;
    const payload = { id: "evt_payload_0005", ...paymentCaptured(order.orderId, "pay_hook0005", order.amount) };
    expect((await webhook(payload)).body.data.duplicate).toBe(false);
    expect((await webhook(payload)).body.data.duplicate).toBe(true);
    const noId = { event: "payment.failed", payload: { payment: { entity: { id: "pay_fail", order_id: order.orderId } } } };
    expect((await webhook(noId)).body.data).toEqual({ event: "payment.failed", duplicate: false, action: "ignored" });
    expect((await webhook(noId)).body.data.duplicate).toBe(true);
  });

  test("subscription events extend, mark past_due and cancel", async () => {
    const ws = await createWorkspace(t);
    const end = Math.floor(t.clock.now().getTime() / 1000) + 30 * 86_400;
    const sub = (status: string, extra: Record<string, unknown> = {}) => ({
      id: "sub_parley01",
      entity: "subscription",
      status,
      current_end: end,
      notes: { workspaceId: ws.id, planId: "pro", interval: "monthly" },
      ...extra,
    });
    const charged = await webhook(
      { event: "subscription.charged", payload: { subscription: { entity: sub("active") }, payment: { entity: { id: "pay_sub001", amount: 599_900, currency: "INR" } } } },
      { eventId: "evt_sub_1" },
    );
    expect(charged.body.data.action).toBe("extended");
    expect((await state(ws.id)).ws).toMatchObject({ plan_id: "pro", subscription_status: "active", current_period_end: end * 1000 });
    await webhook({ event: "subscription.halted", payload: { subscription: { entity: sub("halted") } } }, { eventId: "evt_sub_2" });
    expect(((await state(ws.id)).ws as any).subscription_status).toBe("past_due");
    await webhook({ event: "subscription.cancelled", payload: { subscription: { entity: sub("cancelled") } } }, { eventId: "evt_sub_3" });
    expect(((await state(ws.id)).ws as any).subscription_status).toBe("cancelled");
    // notes naming an unknown workspace are ignored
    const stray = await webhook({ event: "subscription.cancelled", payload: { subscription: { entity: { ...sub("cancelled"), notes: { workspaceId: Bun.randomUUIDv7() } } } } }, { eventId: "evt_sub_4" });
    expect(stray.body.data.action).toBe("ignored");
  });

  test("over a real HTTP connection (streamed body) the raw bytes are what is verified", async () => {
    const ws = await createWorkspace(t);
    const order = (await checkout(ws)).body.data;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => t.app.handle(req) });
    try {
      const raw = JSON.stringify(paymentCaptured(order.orderId, "pay_http0001", order.amount), null, 4);
      const res = await fetch(`http://127.0.0.1:${server.port}/api/billing/webhooks/razorpay`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-razorpay-signature": await hmacHexWebCrypto(WEBHOOK_SECRET, raw), "x-razorpay-event-id": "evt_http" },
        body: raw,
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).data.action).toBe("activated");
    } finally {
      server.stop(true);
    }
  });

  test("a payment for an order Parley does not know is acknowledged and ignored", async () => {
    const r = await webhook(paymentCaptured("order_unknown", "pay_x", 100), { eventId: "evt_unknown" });
    expect(r.status).toBe(200);
    expect(r.body.data.action).toBe("ignored");
  });
});

describe("without Razorpay keys billing is manual", () => {
  test("checkout and verify answer 409 CONFLICT saying so; the webhook too", async () => {
    const manual = await createTestApp();
    const ws = await createWorkspace(manual);
    const r = await manual.request("POST", "/api/billing/checkout", { token: ws.owner.token, body: { planId: "pro", interval: "monthly" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CONFLICT");
    expect(r.body.message).toContain("billing is manual");
    const v = await manual.request("POST", "/api/billing/verify", { token: ws.owner.token, body: { razorpay_order_id: "o", razorpay_payment_id: "p", razorpay_signature: "s" } });
    expect(v.status).toBe(409);
    const h = await manual.request("POST", "/api/billing/webhooks/razorpay", { body: "{}", headers: { "content-type": "application/json", "x-razorpay-signature": "00" } });
    expect(h.status).toBe(409);
    const sub = await manual.request("GET", "/api/billing/subscription", { token: ws.owner.token });
    expect(sub.body.data.checkoutAvailable).toBe(false);
    await manual.close();
  });
});
