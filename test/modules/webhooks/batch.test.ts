import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { leaseMs } from "../../../src/modules/webhooks/deliver.ts";
import { recordAttempts } from "../../../src/modules/webhooks/record.ts";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { connectSession, createHook, deliveries, emit, until, webhookApp } from "./helpers.ts";

// Group commit: attempts that finish together are recorded in one transaction. An outcome
// that never gets committed (the process died, the store failed) leaves its lease behind and
// the delivery is sent again, same id, next attempt; each outcome of a batch keeps its own
// fence, so a worker whose claim was taken over cannot overwrite the newer attempt.
let t: TestApp;
let ws: TestWorkspace;
let rx: Receiver;

/** Holds every request until `open()`: the attempts then finish in the same turn and share a batch. */
function gate(): { open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  rx.handler = async () => {
    await opened;
    return new Response("ok");
  };
  return { open };
}

beforeAll(async () => {
  rx = startReceiver();
  t = await webhookApp();
});
// a workspace per test: only this test's webhook gets its events
beforeEach(async () => {
  ws = await createWorkspace(t);
  await connectSession(t, ws.id);
  rx.received.length = 0;
  rx.handler = () => new Response("ok");
});
afterAll(async () => {
  rx.stop();
  await t.close();
});

const idsSent = (id: string) => rx.received.filter((r) => r.headers.get("x-webhook-delivery-id") === id).map((r) => r.headers.get("x-webhook-attempt"));

test("an outcome that was not committed is sent again after its lease with the same delivery id; the rest of its batch is recorded", async () => {
  const hook = await createHook(t, ws, `${rx.url}/lost`, ["message_received"], "lost");
  for (let i = 0; i < 3; i++) (await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `lost-${i}` }));
  const [victim, ...others] = await deliveries(t, hook.id);
  // the store refuses this one outcome, as a process killed before the commit would never write it
  await t.deps.db.exec(
    t.deps.db.engine === "postgres"
      ? `CREATE FUNCTION lose_outcome() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated crash before the outcome was committed'; END $$;
         CREATE TRIGGER lose_outcome BEFORE UPDATE OF status ON webhook_deliveries FOR EACH ROW WHEN (NEW.id = '${victim.id}') EXECUTE FUNCTION lose_outcome()`
      : `CREATE TEMP TRIGGER lose_outcome BEFORE UPDATE OF status ON webhook_deliveries WHEN NEW.id = '${victim.id}'
         BEGIN SELECT RAISE(ABORT, 'simulated crash before the outcome was committed'); END`,
  );
  const g = gate();
  const run = t.services.webhooks.runDue();
  await until(() => rx.received.length === 3, "three attempts in flight");
  g.open();
  expect(await run).toBe(3);
  await t.deps.db.exec(t.deps.db.engine === "postgres" ? "DROP TRIGGER lose_outcome ON webhook_deliveries; DROP FUNCTION lose_outcome()" : "DROP TRIGGER lose_outcome");

  let rows = await deliveries(t, hook.id);
  expect(rows.filter((r) => others.some((o) => o.id === r.id)).map((r) => [r.status, r.attempts])).toEqual([["success", 1], ["success", 1]]);
  const lost = rows.find((r) => r.id === victim.id);
  expect([lost.status, lost.attempts, lost.response_status]).toEqual(["pending", 1, null]);
  expect(lost.lease_until).toBeGreaterThan(t.clock.now().getTime());

  // still leased: nobody sends it before the lease runs out
  expect(await t.services.webhooks.runDue()).toBe(0);
  t.clock.advance(leaseMs(t.deps) + 1);
  expect(await t.services.webhooks.runDue()).toBe(1);
  rows = await deliveries(t, hook.id);
  expect(rows.find((r) => r.id === victim.id)).toMatchObject({ status: "success", attempts: 2, lease_until: null });
  expect(idsSent(victim.id)).toEqual(["1", "2"]);
  for (const o of others) expect(idsSent(o.id)).toEqual(["1"]);
});

test("each outcome of a batch is fenced by its attempt number: a claim taken over meanwhile is not overwritten", async () => {
  const hook = await createHook(t, ws, `${rx.url}/fenced`, ["message_received"], "fenced");
  for (let i = 0; i < 3; i++) (await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `fence-${i}` }));
  const g = gate();
  const run = t.services.webhooks.runDue();
  await until(() => rx.received.length === 3, "three attempts in flight");

  // the attempts hang past their lease; another worker takes one delivery over (attempt 2)
  t.clock.advance(leaseMs(t.deps) + 1);
  const now = t.clock.now().getTime();
  const taken = await t.deps.deliveries.claimDue(now, leaseMs(t.deps), []);
  expect(taken?.attempts).toBe(2);
  expect(taken?.webhookId).toBe(hook.id);
  // only that one was taken over: the other two attempts still hold a lease (else the refill of the
  // first outcome recorded could claim them again, depending on which outcomes share a group commit)
  await t.deps.db.prepare("UPDATE webhook_deliveries SET lease_until = ? WHERE webhook_id = ? AND id <> ?").run(now + leaseMs(t.deps), hook.id, taken!.id);

  g.open();
  expect(await run).toBe(3);
  const rows = await deliveries(t, hook.id);
  const over = rows.find((r) => r.id === taken!.id);
  // the stale attempt's success did not touch the newer attempt's row: still leased, no outcome
  expect(over).toMatchObject({ status: "pending", attempts: 2, lease_until: now + leaseMs(t.deps), response_status: null, delivered_at: null });
  expect(rows.filter((r) => r.id !== taken!.id).map((r) => [r.status, r.attempts, r.response_status])).toEqual([["success", 1, 200], ["success", 1, 200]]);
});

test("a running dispatcher sends and records each delivery once, its freed slots refilled in the record transaction", async () => {
  const hook = await createHook(t, ws, `${rx.url}/running`, ["message_received"], "running");
  for (let i = 0; i < 20; i++) (await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `run-${i}` }));
  t.services.webhooks.start();
  await until(async () => (await deliveries(t, hook.id)).every((r) => r.status === "success"), "all 20 recorded");
  await t.services.webhooks.stop(1000);
  const rows = await deliveries(t, hook.id);
  expect(rows.length).toBe(20);
  expect(rows.every((r) => r.attempts === 1 && r.lease_until === null)).toBe(true);
  expect(new Set(rx.received.map((r) => r.headers.get("x-webhook-delivery-id"))).size).toBe(20);
  expect(rx.received.length).toBe(20);
});

test("a webhook's health in a batch ends as one write per outcome would leave it: success then failure starts a new streak", async () => {
  const hook = await createHook(t, ws, `${rx.url}/health`, ["message_received"], "health");
  const health = async () => (await t.deps.db.prepare("SELECT failing_since AS f, last_failure_at AS l, last_success_at AS s FROM webhooks WHERE id = ?").get(hook.id)) as { f: number | null; l: number | null; s: number | null };
  const store = t.deps.deliveries;
  const claim = async () => (await store.claimDue(t.clock.now().getTime(), leaseMs(t.deps), []))!;
  const ok = { ok: true, gone: false, responseStatus: 200, responseBody: "ok", durationMs: 1, error: null, retryAfterSeconds: null };
  const bad = { ...ok, ok: false, responseStatus: 500, error: "receiver answered 500" };
  for (let i = 0; i < 4; i++) (await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: `health-${i}` }));
  // an old failing streak
  await t.deps.db.prepare("UPDATE webhooks SET failing_since = ?1, last_failure_at = ?1 WHERE id = ?2").run(t.clock.now().getTime() - 3_600_000, hook.id);

  t.clock.advance(1000);
  const at1 = t.clock.now().getTime();
  await recordAttempts(t.deps, [
    { d: await claim(), o: ok, opts: { manual: false, at: at1 } },
    { d: await claim(), o: bad, opts: { manual: false, at: at1 } },
  ]);
  // the success ended the old streak before the failure was counted: a new one starts now
  expect(await health()).toEqual({ f: at1, l: at1, s: at1 });

  t.clock.advance(1000);
  const at2 = t.clock.now().getTime();
  await recordAttempts(t.deps, [
    { d: await claim(), o: bad, opts: { manual: false, at: at2 } },
    { d: await claim(), o: ok, opts: { manual: false, at: at2 } },
  ]);
  expect(await health()).toEqual({ f: null, l: null, s: at2 });
});

test("a batch with successes of several webhooks marks each of them healthy, and not the webhook of a claim taken over meanwhile", async () => {
  const hooks = [];
  for (const name of ["multi-a", "multi-b", "multi-c"]) hooks.push(await createHook(t, ws, `${rx.url}/${name}`, ["message_received"], name));
  await emit(t, ws.id, "message_received", { sessionId: "s", from: "91", messageId: "multi" });
  const failingAt = t.clock.now().getTime() - 3_600_000;
  for (const h of hooks) (await t.deps.db.prepare("UPDATE webhooks SET failing_since = ?1, last_failure_at = ?1 WHERE id = ?2").run(failingAt, h.id));
  const store = t.deps.deliveries;
  const claims = [];
  for (const h of hooks) claims.push((await store.claimOne(ws.id, h.id, (await deliveries(t, h.id))[0].id, t.clock.now().getTime(), leaseMs(t.deps)))!);
  // the third claim was taken over (its attempt counted again): its outcome is stale
  await t.deps.db.prepare("UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE id = ?").run(claims[2]!.id);

  t.clock.advance(1000);
  const at = t.clock.now().getTime();
  const ok = { ok: true, gone: false, responseStatus: 200, responseBody: "ok", durationMs: 1, error: null, retryAfterSeconds: null };
  await recordAttempts(t.deps, claims.map((d) => ({ d, o: ok, opts: { manual: false, at } })));

  const health = async (id: string) => (await t.deps.db.prepare("SELECT failing_since AS f, last_failure_at AS l, last_success_at AS s FROM webhooks WHERE id = ?").get(id));
  expect(await Promise.all(hooks.map((h) => health(h.id)))).toEqual([
    { f: null, l: null, s: at },
    { f: null, l: null, s: at },
    { f: failingAt, l: failingAt, s: null },
  ]);
  expect(await Promise.all(hooks.map(async (h) => [(await deliveries(t, h.id))[0].status, (await deliveries(t, h.id))[0].response_status]))).toEqual([["success", 200], ["success", 200], ["pending", null]]);
});
