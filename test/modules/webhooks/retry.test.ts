import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { connectSession, createHook, deliveries, emit, mails, webhookApp } from "./helpers.ts";

// Shortened schedule: attempts at 0 s, then 10 s, 60 s and 300 s after each failure (±10% jitter).
let t: TestApp;
let ws: TestWorkspace;
let rx: Receiver;
const S = 1000;

beforeAll(async () => {
  rx = startReceiver();
  t = await webhookApp({ webhookTimeoutMs: 1000 });
  ws = await createWorkspace(t, { status: "active", planId: "pro" });
  await connectSession(t, ws.id);
});
afterAll(async () => {
  rx.stop();
  await t.close();
});
beforeEach(async () => {
  rx.received.length = 0;
  rx.handler = () => new Response("ok");
  // each test watches only its own webhook; the clock moves, so tokens are minted afresh
  await t.deps.db.prepare("UPDATE webhooks SET is_active = 0").run();
  await refreshToken();
});

async function refreshToken() {
  ws.owner.token = await accessToken(t, ws.owner.userId, ws.id, "owner");
}

const run = () => t.services.webhooks.runDue();
const sent = (n: number) => emit(t, ws.id, "message_sent", { sessionId: "s", to: "91", messageId: `m${n}` });
const history = async (id: string) => (await t.request("GET", `/api/webhooks/${id}/history`, { token: ws.owner.token })).body.data;

describe("automatic retries", () => {
  test("500, 500, then 200: same delivery id, attempt counts up, never before the schedule", async () => {
    const hook = await createHook(t, ws, `${rx.url}/flaky`, ["message_sent"]);
    rx.handler = (_r, n) => (n < 3 ? new Response("boom", { status: 500 }) : new Response("fine"));
    await sent(1);
    expect(await run()).toBe(1);
    let [row] = await deliveries(t, hook.id);
    expect(row).toMatchObject({ status: "retrying", attempts: 1, response_status: 500, response_body: "boom", error: "receiver answered 500" });
    const gap = row.next_attempt_at - t.clock.now().getTime();
    expect(gap).toBeGreaterThanOrEqual(9 * S);
    expect(gap).toBeLessThanOrEqual(11 * S);
    t.clock.advance(8.9 * S);
    expect(await run()).toBe(0);
    t.clock.advance(2.2 * S);
    expect(await run()).toBe(1);
    [row] = await deliveries(t, hook.id);
    expect(row).toMatchObject({ status: "retrying", attempts: 2 });
    t.clock.advance(66 * S);
    expect(await run()).toBe(1);
    [row] = await deliveries(t, hook.id);
    expect(row).toMatchObject({ status: "success", attempts: 3, response_status: 200, next_attempt_at: null, error: null });
    await refreshToken();
    expect(rx.received.map((r) => r.headers.get("x-webhook-attempt"))).toEqual(["1", "2", "3"]);
    expect(new Set(rx.received.map((r) => r.headers.get("x-webhook-delivery-id")))).toEqual(new Set([row.id]));
    expect(new Set(rx.received.map((r) => r.body)).size).toBe(1);
    const [entry] = await history(hook.id);
    expect(entry).toMatchObject({ id: row.id, status: "success", attempts: 3, responseStatus: 200 });
  });

  test("the schedule's length bounds the attempts; then the delivery is failed", async () => {
    const hook = await createHook(t, ws, `${rx.url}/down`, ["message_sent"]);
    rx.handler = () => new Response("no", { status: 503 });
    await sent(2);
    for (let i = 0; i < 6; i++) {
      await run();
      t.clock.advance(400 * S);
    }
    const [row] = await deliveries(t, hook.id);
    expect(row).toMatchObject({ status: "failed", attempts: 4, next_attempt_at: null, response_status: 503 });
    expect(rx.received.length).toBe(4);
  });

  test("410 Gone fails the delivery, deactivates the webhook and tells the owner", async () => {
    const hook = await createHook(t, ws, `${rx.url}/gone`, ["message_sent"]);
    rx.handler = () => new Response("gone", { status: 410 });
    const mailsBefore = mails(t).length;
    await sent(3);
    await run();
    expect((await deliveries(t, hook.id))[0]).toMatchObject({ status: "failed", attempts: 1, response_status: 410 });
    const got = (await t.request("GET", `/api/webhooks/${hook.id}`, { token: ws.owner.token })).body.data;
    expect(got).toMatchObject({ isActive: false, disabledReason: "gone" });
    await t.deps.jobs.runDue();
    expect(mails(t).slice(mailsBefore).map((m) => m.to)).toEqual([ws.owner.email]);
    // no more deliveries are written for it
    await sent(4);
    expect((await deliveries(t, hook.id)).length).toBe(1);
  });

  test("a receiver that times out is retried; the error says so and no status is recorded", async () => {
    const hook = await createHook(t, ws, `${rx.url}/slow`, ["message_sent"]);
    rx.handler = async () => {
      await Bun.sleep(4000);
      return new Response("late");
    };
    await sent(5);
    await run();
    const [row] = await deliveries(t, hook.id);
    expect(row).toMatchObject({ status: "retrying", attempts: 1, response_status: null });
    expect(row.error).toContain("timed out");
  });

  test("a redirect is not followed: the attempt fails and the location is never requested", async () => {
    const hook = await createHook(t, ws, `${rx.url}/moved`, ["message_sent"]);
    rx.handler = (r) => (r.path === "/moved" ? new Response(null, { status: 301, headers: { location: `${rx.url}/elsewhere` } }) : new Response("should not happen"));
    await sent(6);
    await run();
    const [row] = await deliveries(t, hook.id);
    expect(row).toMatchObject({ status: "retrying", response_status: 301 });
    expect(row.error).toContain("redirect not followed");
    expect(rx.received.map((r) => r.path)).toEqual(["/moved"]);
  });

  test("Retry-After is honoured over a shorter schedule step", async () => {
    const hook = await createHook(t, ws, `${rx.url}/busy`, ["message_sent"]);
    rx.handler = (_r, n) => (n === 1 ? new Response("busy", { status: 429, headers: { "retry-after": "120" } }) : new Response("ok"));
    await sent(7);
    await run();
    const [row] = await deliveries(t, hook.id);
    expect(row.next_attempt_at - t.clock.now().getTime()).toBe(120 * S);
    t.clock.advance(60 * S); // the schedule alone would have retried after 10 s
    expect(await run()).toBe(0);
    t.clock.advance(60 * S);
    expect(await run()).toBe(1);
    expect((await deliveries(t, hook.id))[0]).toMatchObject({ status: "success", attempts: 2 });
  });
});

describe("manual retry", () => {
  test("keeps the delivery id and increments the attempt, for a failed delivery too", async () => {
    const hook = await createHook(t, ws, `${rx.url}/manual`, ["message_sent"]);
    rx.handler = () => new Response("no", { status: 500 });
    await sent(8);
    for (let i = 0; i < 5; i++) {
      await run();
      t.clock.advance(400 * S);
    }
    const [failed] = await deliveries(t, hook.id);
    expect(failed).toMatchObject({ status: "failed", attempts: 4 });
    await refreshToken();
    rx.handler = () => new Response("thanks");
    const r = await t.request("POST", `/api/webhooks/${hook.id}/deliveries/${failed.id}/retry`, { token: ws.owner.token });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: failed.id, status: "success", attempts: 5, responseStatus: 200 });
    const last = rx.received.at(-1)!;
    expect(last.headers.get("x-webhook-delivery-id")).toBe(failed.id);
    expect(last.headers.get("webhook-id")).toBe(failed.id);
    expect(last.headers.get("x-webhook-attempt")).toBe("5");
    expect(last.body).toBe(rx.received[0]!.body);
    expect((await history(hook.id))[0]).toMatchObject({ id: failed.id, status: "success", attempts: 5 });
  });

  test("a manual re-send that fails leaves a finished delivery failed, with no automatic retry planned", async () => {
    const hook = await createHook(t, ws, `${rx.url}/again`, ["message_sent"]);
    await sent(9);
    await run();
    const [ok] = await deliveries(t, hook.id);
    rx.handler = () => new Response("nope", { status: 500 });
    const r = await t.request("POST", `/api/webhooks/${hook.id}/deliveries/${ok.id}/retry`, { token: ws.owner.token });
    expect(r.body.data).toMatchObject({ id: ok.id, status: "failed", attempts: 2, responseStatus: 500 });
    expect((await deliveries(t, hook.id))[0].next_attempt_at).toBeNull();
  });

  test("an unknown delivery id is 404", async () => {
    const hook = await createHook(t, ws, `${rx.url}/x`, ["message_sent"]);
    const r = await t.request("POST", `/api/webhooks/${hook.id}/deliveries/${Bun.randomUUIDv7()}/retry`, { token: ws.owner.token });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("NOT_FOUND");
  });
});

describe("test deliveries", () => {
  test("a sample of the first subscribed event with X-Webhook-Test; kept in the history", async () => {
    const hook = await createHook(t, ws, `${rx.url}/try`, ["message.delivered", "message_read"]);
    const r = await t.request("POST", `/api/webhooks/${hook.id}/test`, { token: ws.owner.token });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ delivered: true, responseStatus: 200 });
    const got = rx.received.at(-1)!;
    expect(got.headers.get("x-webhook-test")).toBe("true");
    expect(got.headers.get("x-webhook-event")).toBe("message_delivered");
    const body = JSON.parse(got.body);
    expect(body.event).toBe("message_delivered");
    expect(Object.keys(body.data).sort()).toEqual(["deliveredAt", "messageId", "sessionId"]);
    const [entry] = await history(hook.id);
    expect(entry).toMatchObject({ id: r.body.data.deliveryId, isTest: true, status: "success", eventType: "message_delivered" });
  });

  test("a failing receiver answers delivered false with its status; none at all answers 0", async () => {
    const hook = await createHook(t, ws, `${rx.url}/try500`, ["message_sent"]);
    rx.handler = () => new Response("x", { status: 500 });
    const r = await t.request("POST", `/api/webhooks/${hook.id}/test`, { token: ws.owner.token });
    expect(r.body.data).toMatchObject({ delivered: false, responseStatus: 500 });
    const dead = startReceiver();
    const deadUrl = `${dead.url}/gone-away`;
    dead.stop();
    const hook2 = await createHook(t, ws, deadUrl, ["message_sent"]);
    const r2 = await t.request("POST", `/api/webhooks/${hook2.id}/test`, { token: ws.owner.token });
    expect(r2.body.data).toMatchObject({ delivered: false, responseStatus: 0 });
    // tests are not retried and do not touch the webhook's health
    t.clock.advance(3600 * S);
    expect(await run()).toBe(0);
    await refreshToken();
    expect(((await t.deps.db.prepare("SELECT failing_since FROM webhooks WHERE id = ?").get(hook.id)) as any).failing_since).toBeNull();
  });
});

describe("five days of failures", () => {
  test("a quiet gap ends a failing streak: one failure after five quiet days does not deactivate", async () => {
    const hook = await createHook(t, ws, `${rx.url}/quiet`, ["message_sent"]);
    const DAY = 86_400 * S;
    const failingSince = async () => ((await t.deps.db.prepare("SELECT failing_since AS f FROM webhooks WHERE id = ?").get(hook.id)) as { f: number | null }).f;
    rx.handler = () => new Response("down", { status: 500 });
    await sent(900);
    const day0 = t.clock.now().getTime();
    await run();
    // the delivery's retries (10 s, 60 s, 300 s) fail too, then it is failed
    for (let i = 0; i < 4; i++) {
      t.clock.advance(400 * S);
      await run();
    }
    expect((await deliveries(t, hook.id)).map((d) => d.status)).toEqual(["failed"]);
    expect(await failingSince()).toBe(day0);
    // five quiet days: nothing to send
    t.clock.advance(5 * DAY);
    await sent(901);
    const day5 = t.clock.now().getTime();
    await run();
    await refreshToken();
    const got = (await t.request("GET", `/api/webhooks/${hook.id}`, { token: ws.owner.token })).body.data;
    expect(got).toMatchObject({ isActive: true, disabledReason: null });
    expect(await failingSince()).toBe(day5);
    // failures that follow each other within the longest retry gap (12 h Retry-After cap + margin) still add up
    for (let i = 0; i < 9; i++) {
      t.clock.advance(DAY / 2);
      await sent(902 + i);
      await run();
    }
    expect(await failingSince()).toBe(day5);
    await refreshToken();
    expect((await t.request("GET", `/api/webhooks/${hook.id}`, { token: ws.owner.token })).body.data.isActive).toBe(true); // 4.5 days
    t.clock.advance(DAY / 2);
    await sent(911);
    await run();
    await refreshToken();
    expect((await t.request("GET", `/api/webhooks/${hook.id}`, { token: ws.owner.token })).body.data).toMatchObject({ isActive: false, disabledReason: "failing" });
    await t.deps.jobs.runDue(); // its notice goes out now, not in the next test
  });

  test("deactivate the webhook and mail the owner; a success in between resets the count; tests do not count", async () => {
    const hook = await createHook(t, ws, `${rx.url}/dying`, ["message_sent"]);
    const DAY = 86_400 * S;
    rx.handler = () => new Response("down", { status: 500 });
    const mailsBefore = mails(t).length;
    // day 0 to 3 fail; day 3.5 one success resets; then failing again from day 4
    for (let day = 0; day < 3.5; day += 0.5) {
      await sent(100 + day * 2);
      await run();
      t.clock.advance(DAY / 2);
    }
    rx.handler = () => new Response("ok");
    await sent(200);
    await run();
    rx.handler = () => new Response("down", { status: 500 });
    let active = true;
    let days = 0;
    while (active && days < 10) {
      t.clock.advance(DAY / 2);
      days += 0.5;
      await refreshToken();
      // a failing test delivery on the way must not count or reset anything
      await t.request("POST", `/api/webhooks/${hook.id}/test`, { token: ws.owner.token });
      await sent(300 + days * 2);
      await run();
      active = (await t.request("GET", `/api/webhooks/${hook.id}`, { token: ws.owner.token })).body.data.isActive;
    }
    expect(active).toBe(false);
    expect(days).toBe(5.5); // first failure half a day after the reset; five days later it is switched off
    expect((await t.request("GET", `/api/webhooks/${hook.id}`, { token: ws.owner.token })).body.data.disabledReason).toBe("failing");
    await t.deps.jobs.runDue();
    const mail = mails(t).slice(mailsBefore);
    expect(mail.map((m) => m.to)).toEqual([ws.owner.email]);
    expect(mail[0]!.text).toContain("5 days");
    // switched back on: the waiting deliveries go out
    rx.handler = () => new Response("ok");
    await refreshToken();
    await t.request("PATCH", `/api/webhooks/${hook.id}`, { token: ws.owner.token, body: { isActive: true } });
    t.clock.advance(DAY);
    await run();
    const left = (await deliveries(t, hook.id)).filter((d) => d.status === "retrying" || d.status === "pending");
    expect(left).toEqual([]);
  });
});
