import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseRetryAfter } from "../../../src/modules/webhooks/deliver.ts";
import { retryDelayMs, RETRY_AFTER_CAP_MS } from "../../../src/modules/webhooks/record.ts";
import type { TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../../net/receiver.ts";
import { connectSession, createHook, deliveries, emit, webhookApp } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let rx: Receiver;
let hookId: string;

beforeAll(async () => {
  rx = startReceiver();
  // every third request fails
  rx.handler = (_r, n) => (n % 3 === 0 ? new Response("no", { status: 500 }) : new Response("ok"));
  t = await webhookApp({ webhookRetentionDays: 30 });
  ws = await createWorkspace(t);
  await connectSession(t, ws.id);
  hookId = (await createHook(t, ws, `${rx.url}/h`, ["message_sent", "message_read"])).id;
  for (let i = 0; i < 12; i++) {
    if (i % 4 === 0) (await emit(t, ws.id, "message_read", { sessionId: "s", messageId: `r${i}`, readAt: t.clock.now().toISOString() }));
    else await emit(t, ws.id, "message_sent", { sessionId: "s", to: "91", messageId: `m${i}` });
  }
  await t.services.webhooks.runDue();
});
afterAll(async () => {
  rx.stop();
  await t.close();
});

const get = async (query: string) => (await t.request("GET", `/api/webhooks/${hookId}/history${query}`, { token: ws.owner.token })).body;

describe("history", () => {
  test("newest first, paginated with page and limit", async () => {
    const all = (await deliveries(t, hookId)).map((d) => d.id).reverse();
    const p1 = await get("?limit=5");
    const p3 = await get("?limit=5&page=3");
    expect(p1.pagination).toEqual({ page: 1, limit: 5, total: 12, totalPages: 3 });
    expect(p1.data.map((e: { id: string }) => e.id)).toEqual(all.slice(0, 5));
    expect(p3.data.map((e: { id: string }) => e.id)).toEqual(all.slice(10));
  });

  test("filters by status and by event (aliases accepted)", async () => {
    const failed = await get("?status=retrying");
    expect(failed.data.length).toBe(4);
    expect(failed.data.every((e: { status: string; responseStatus: number }) => e.status === "retrying" && e.responseStatus === 500)).toBe(true);
    const reads = await get("?event=message.read");
    expect(reads.pagination.total).toBe(3);
    expect(reads.data.every((e: { eventType: string }) => e.eventType === "message_read")).toBe(true);
  });

  test("keyset cursors: before and after a delivery id", async () => {
    const all = (await deliveries(t, hookId)).map((d) => d.id).reverse(); // newest first
    const older = await get(`?before=${all[3]}&limit=4`);
    expect(older.data.map((e: { id: string }) => e.id)).toEqual(all.slice(4, 8));
    const newer = await get(`?after=${all[8]}&limit=3`);
    expect(newer.data.map((e: { id: string }) => e.id)).toEqual(all.slice(5, 8));
  });

  test("cursor pages answer the message lists' keyset pagination (no total), and walk the whole history", async () => {
    const all = (await deliveries(t, hookId)).map((d) => d.id).reverse(); // newest first
    const first = await get(`?before=${all[0]}&limit=5`);
    expect(first.pagination).toEqual({ limit: 5, hasMore: true, nextCursor: all[5], prevCursor: all[1] });
    const seen: string[] = [all[0]!];
    let page = first;
    for (;;) {
      seen.push(...page.data.map((e: { id: string }) => e.id));
      if (!page.pagination.hasMore) break;
      page = await get(`?before=${page.pagination.nextCursor}&limit=5`);
    }
    expect(seen).toEqual(all);
    expect(page.pagination).toEqual({ limit: 5, hasMore: false, nextCursor: null, prevCursor: page.data[0].id });
    // newer than the oldest: the page right after it, and a cursor to go on
    const newer = await get(`?after=${all.at(-1)}&limit=4`);
    expect(newer.data.map((e: { id: string }) => e.id)).toEqual(all.slice(-5, -1));
    expect(newer.pagination).toEqual({ limit: 4, hasMore: true, nextCursor: all.at(-2), prevCursor: all.at(-5) });
    // page/limit keeps the numbered pagination
    expect((await get("?limit=5&page=1")).pagination).toEqual({ page: 1, limit: 5, total: all.length, totalPages: Math.ceil(all.length / 5) });
  });

  test("before with after, and a page number past 1 with a cursor, are 400 naming the field", async () => {
    const [a, b] = (await deliveries(t, hookId)).map((d) => d.id);
    for (const [q, field] of [[`?before=${b}&after=${a}`, "after"], [`?before=${b}&page=2`, "page"], [`?after=${a}&page=3`, "page"]] as const) {
      const r = await t.request("GET", `/api/webhooks/${hookId}/history${q}`, { token: ws.owner.token });
      expect(`${q} ${r.status} ${r.body.code} ${Object.keys(r.body.errors ?? {})}`).toBe(`${q} 400 VALIDATION_ERROR ${field}`);
    }
  });

  test("bad query values are 400 naming the field", async () => {
    for (const [q, field] of [["?status=lost", "status"], ["?event=nope", "event"], ["?limit=101", "limit"], ["?before=xyz", "before"]] as const) {
      const r = await t.request("GET", `/api/webhooks/${hookId}/history${q}`, { token: ws.owner.token });
      expect(`${q} ${r.status} ${Object.keys(r.body.errors ?? {})}`).toBe(`${q} 400 ${field}`);
    }
  });
});

describe("retention", () => {
  test("the periodic prune deletes finished deliveries older than the retention setting, keeps newer ones and open ones", async () => {
    const prune = t.services.periodic.find((p) => p.name === "webhooks.prune")!;
    const before = (await deliveries(t, hookId)).length;
    const open = (await deliveries(t, hookId)).filter((d) => d.status === "retrying").map((d) => d.id);
    expect(open.length).toBe(4);
    t.clock.advance(29 * 86_400_000);
    await emit(t, ws.id, "message_sent", { sessionId: "s", to: "91", messageId: "fresh" });
    await prune.run();
    expect((await deliveries(t, hookId)).length).toBe(before + 1);
    t.clock.advance(1 * 86_400_000 + 1);
    await prune.run();
    const left = await deliveries(t, hookId);
    // the deliveries still waiting for a retry (on a receiver that was down) are kept whatever their age
    expect(left.filter((d) => d.status === "success").map((d) => JSON.parse(d.payload).data.messageId)).toEqual([]);
    expect(left.map((d) => d.id)).toEqual([...open, left.at(-1).id]);
    expect(JSON.parse(left.at(-1).payload).data.messageId).toBe("fresh");
    ws.owner.token = await accessToken(t, ws.owner.userId, ws.id, "owner");
    expect((await get("")).pagination.total).toBe(5);
  });

  test("a switched-off webhook's parked deliveries survive retention; failed ones go", async () => {
    const prune = t.services.periodic.find((p) => p.name === "webhooks.prune")!;
    rx.handler = () => new Response("no", { status: 500 });
    const parked = (await createHook(t, ws, `${rx.url}/parked`, ["message_delivered"], "parked")).id;
    await emit(t, ws.id, "message_delivered", { sessionId: "s", messageId: "p1", deliveredAt: t.clock.now().toISOString() });
    await t.request("PATCH", `/api/webhooks/${parked}`, { token: ws.owner.token, body: { isActive: false } });
    const failedRow = Bun.randomUUIDv7();
    const now = t.clock.now().getTime();
    await t.deps.db
      .prepare(`INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, attempts, created_at, updated_at)
              VALUES (?, ?, ?, ?, 'message_delivered', '{}', 'failed', 8, ?, ?)`)
      .run(failedRow, ws.id, parked, Bun.randomUUIDv7(), now, now);
    t.clock.advance(60 * 86_400_000);
    await prune.run();
    expect((await deliveries(t, parked)).map((d) => [d.status, d.next_attempt_at])).toEqual([["pending", null]]);
    rx.handler = (_r, n) => (n % 3 === 0 ? new Response("no", { status: 500 }) : new Response("ok"));
  });

  test("a test delivery cut short by a crash is marked failed, not left pending forever", async () => {
    const prune = t.services.periodic.find((p) => p.name === "webhooks.prune")!;
    const now = t.clock.now().getTime();
    const id = Bun.randomUUIDv7();
    // what POST /test leaves when the process dies during its attempt: claimed, leased, no outcome
    await t.deps.db
      .prepare(`INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, is_test, status, attempts, lease_until, created_at, updated_at)
              VALUES (?, ?, ?, ?, 'message_sent', '{}', 1, 'pending', 1, ?, ?, ?)`)
      .run(id, ws.id, hookId, Bun.randomUUIDv7(), now + 15_000, now, now);
    const row = async () => (await t.deps.db.prepare("SELECT status, error, lease_until AS lease FROM webhook_deliveries WHERE id = ?").get(id)) as { status: string; error: string | null; lease: number | null };
    await prune.run();
    expect((await row()).status).toBe("pending"); // its lease has not run out: the attempt may still be going
    t.clock.advance(15_001);
    await prune.run();
    expect(await row()).toEqual({ status: "failed", error: "interrupted: the server stopped during the attempt", lease: null });
    // and, being finished, it ages out with the rest
    t.clock.advance(31 * 86_400_000);
    await prune.run();
    expect(await row()).toBeUndefined();
  });
});

describe("schedule arithmetic", () => {
  test("jitter stays within ±10% of the step; Retry-After raises the delay, capped", () => {
    const schedule = [0, 10, 60];
    expect(retryDelayMs(schedule, 1, null, () => 0)).toBe(9000);
    expect(retryDelayMs(schedule, 1, null, () => 1)).toBe(11000);
    expect(retryDelayMs(schedule, 2, null, () => 0.5)).toBe(60000);
    expect(retryDelayMs(schedule, 1, 120, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(schedule, 2, 5, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(schedule, 1, 10 * 86_400, () => 0.5)).toBe(RETRY_AFTER_CAP_MS);
  });

  test("Retry-After as seconds or as an HTTP date", () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(parseRetryAfter("30", now)).toBe(30);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
