import { afterAll, beforeAll, expect, test } from "bun:test";
import { campaignSends } from "../../../src/modules/metrics/counters.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, waitFor } from "../messages/helpers.ts";
import { testEngine } from "../../helpers/postgres.ts";

const TOKEN = "scrape-token-0123456789";
let t: TestApp;
let ws: TestWorkspace;
let receiver: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
  t = await createTestApp({ config: { metricsToken: TOKEN, webhookAllowHttp: true, webhookAllowPrivate: true, sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
});
afterAll(async () => {
  await t.close();
  receiver.stop(true);
});

async function scrape(): Promise<string> {
  const res = await t.app.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return res.text();
}

/** The value of one sample line, e.g. value(text, 'parley_sessions{status="connected"}'); 0 when absent. */
function value(text: string, sample: string): number {
  const line = text.split("\n").find((l) => l.startsWith(sample + " "));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

test("without metricsToken the route does not exist (404 in the envelope)", async () => {
  const off = await createTestApp();
  const r = await off.request("GET", "/metrics");
  expect({ status: r.status, code: r.body.code }).toEqual({ status: 404, code: "NOT_FOUND" });
  await off.close();
});

test("only the metrics token opens it: none, a wrong one and a user's access token are 401", async () => {
  for (const authorization of [undefined, "Bearer wrong-token-0123456789", `Bearer ${ws.owner.token}`, TOKEN]) {
    const r = await t.request("GET", "/metrics", { headers: authorization ? { authorization } : {} });
    expect({ authorization: authorization?.slice(0, 12), status: r.status, code: r.body.code }).toEqual({ authorization: authorization?.slice(0, 12), status: 401, code: "UNAUTHORIZED" });
  }
});

test("HTTP requests by route pattern and status, with durations", async () => {
  const before = await scrape();
  const id = Bun.randomUUIDv7();
  await t.request("GET", `/api/v1/chatapp/${id}`, { token: ws.owner.token });
  await t.request("GET", `/api/v1/chatapp/${id}`, { token: ws.owner.token });
  await t.request("GET", "/no/such/route");
  const after = await waitFor(async () => {
    const s = await scrape();
    return value(s, 'parley_http_request_duration_seconds_count{method="GET",route="/api/v1/chatapp/:id",status="404"}') >= 2 ? s : null;
  }, "request samples");
  const key = 'parley_http_request_duration_seconds_count{method="GET",route="/api/v1/chatapp/:id",status="404"}';
  expect(value(after, key) - value(before, key)).toBe(2);
  expect(after).toContain('parley_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/v1/chatapp/:id",status="404"}');
  expect(value(after, 'parley_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
  expect(after).not.toContain(id); // ids never become labels
});

test("sessions by status, messages by direction and status, queue depths, webhooks, campaigns, storage and memory", async () => {
  const before = await scrape();
  const session = await connectedSession(t, ws);
  await waitFor(async () => (await t.deps.db.prepare<{ status: string }>("SELECT status FROM chat_sessions WHERE id = ?").get(session.id))?.status === "connected", "connected");
  const hook = await t.request("POST", "/api/webhooks", { token: ws.owner.token, body: { name: "r", url: `http://127.0.0.1:${receiver.port}/hook`, events: ["message_sent"] } });
  expect(hook.status).toBe(201);
  const sent = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919800000077", type: "text", body: "hello" } });
  expect(sent.status).toBe(202);
  const queued = await scrape();
  expect(value(queued, 'parley_queue_depth{queue="messages"}')).toBeGreaterThanOrEqual(1);
  expect(value(queued, 'parley_queue_depth{queue="jobs"}')).toBeGreaterThanOrEqual(1);
  await drain(t);
  await waitFor(async () => (await t.deps.db.prepare<{ status: string }>("SELECT status FROM messages WHERE id = ?").get(sent.body.data.id))!.status === "sent", "sent");
  await t.services.webhooks.runDue();
  campaignSends.inc({ outcome: "sent" });
  const after = await scrape();
  const delta = (sample: string) => value(after, sample) - value(before, sample);
  expect(value(after, 'parley_sessions{status="connected"}')).toBeGreaterThanOrEqual(1);
  expect(after).toContain('parley_sessions{status="qr_pending"}');
  expect(delta('parley_messages_total{direction="outbound",status="sent"}')).toBe(1);
  expect(value(after, 'parley_queue_depth{queue="messages"}')).toBe(0);
  expect(delta('parley_webhook_attempt_duration_seconds_count{outcome="success"}')).toBe(1);
  expect(delta('parley_campaign_sends_total{outcome="sent"}')).toBe(1);
  expect(after).toContain("parley_job_queue_lag_seconds ");
  if (testEngine === "sqlite") {
    expect(value(after, 'parley_sqlite_bytes{file="database"}')).toBeGreaterThan(4096);
    expect(after).toContain('parley_sqlite_bytes{file="wal"}');
  } else {
    expect(after).not.toContain("parley_sqlite_bytes"); // PostgreSQL's own monitoring has its sizes
  }
  expect(value(after, 'parley_process_memory_bytes{kind="rss"}')).toBeGreaterThan(1_000_000);
  expect(after).toContain(`parley_build_info{version="${t.deps.version}"} 1`);
});

test("job queue lag: the age of the oldest due job nobody has claimed", async () => {
  const now = t.clock.now().getTime();
  await t.deps.db.prepare("INSERT INTO jobs (id, kind, payload, status, run_at, created_at, updated_at) VALUES (?, 'metrics.test', '{}', 'pending', ?, ?, ?)").run(Bun.randomUUIDv7(), now - 90_000, now, now);
  expect(value(await scrape(), "parley_job_queue_lag_seconds")).toBeGreaterThanOrEqual(90);
});

test("parley_campaign_sends_total gets a sample from a real campaign: sent and skipped recipients, each counted once", async () => {
  const { advanceUntil, campaign, campaignBody, newCampaign, seedContacts } = await import("../campaigns/helpers.ts");
  const before = await scrape();
  const session = await connectedSession(t, ws);
  const people = await seedContacts(t, ws, 4, (i) => ({ optedOut: i === 0 }));
  const id = await newCampaign(t, ws, campaignBody([session.id], people.map((p) => p.id)));
  await advanceUntil(t, 100, async () => (await campaign(t, ws, id)).status === "completed", 500);
  await Bun.sleep(0); // the counts of the last commit are made right after it
  const after = await scrape();
  const delta = (sample: string) => value(after, sample) - value(before, sample);
  expect(delta('parley_campaign_sends_total{outcome="sent"}')).toBe(3);
  expect(delta('parley_campaign_sends_total{outcome="skipped"}')).toBe(1);
  expect(delta('parley_campaign_sends_total{outcome="failed"}')).toBe(0);
});
