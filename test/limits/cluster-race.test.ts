import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { usagePeriod } from "../../src/modules/billing/usage.ts";
import { call, linkedSession, seedWorkspace, startNodes, type SeededWorkspace } from "../helpers/cluster.ts";
import { freshPostgres, TEST_PG_URL } from "../helpers/postgres.ts";
import type { ChildServer } from "../helpers/process.ts";

// Three real `parley serve` processes on one PostgreSQL database: the race of 50 parallel
// requests, spread over the three nodes, at one below a limit gives exactly one success, for
// every limit that must be exact: the per-minute rate limit, the auth routes' per-address
// limit, the daily API-request quota and the plan quotas (messages a month, sessions).

const pgOnly = !TEST_PG_URL;
const RATE = 150;
const RACE = 50;
let nodes: ChildServer[] = [];
let url = "";
let drop: (() => Promise<void>) | undefined;
let sql: postgres.Sql;

beforeAll(async () => {
  if (pgOnly) return;
  const pg = await freshPostgres();
  url = pg.url;
  drop = pg.drop;
  sql = postgres(url, { max: 2, onnotice: () => {} });
  nodes = await startNodes(url, 3, { env: { PARLEY_RATE_LIMIT_PER_MINUTE: String(RATE) } });
  // a plan with small quotas for the races (the operator's catalogue is a table)
  const limits = { sessions: 2, messagesPerMonth: 10, contacts: 100, apiRequestsPerDay: 10, webhooks: 1, teamSeats: 3, campaigns: true };
  await sql`INSERT INTO plans (id, name, currency, monthly_paise, annual_paise, limits, active, sort_order, updated_at)
            VALUES ('race', 'Race', 'INR', 100, 1000, ${JSON.stringify(limits)}, 1, 99, ${Date.now()})`;
}, 60_000);
afterAll(async () => {
  for (const n of nodes) await n.stop();
  await sql?.end();
  await drop?.();
}, 60_000);

/** `count` requests at once, the i-th through node i mod 3; their statuses. */
async function race(count: number, req: (node: string, i: number) => Promise<{ status: number }>): Promise<number[]> {
  return (await Promise.all(Array.from({ length: count }, (_, i) => req(nodes[i % nodes.length]!.url, i)))).map((r) => r.status);
}

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((m, s) => ((m[s] = (m[s] ?? 0) + 1), m), {});

async function raceWorkspace(): Promise<SeededWorkspace> {
  return seedWorkspace(url, { planId: "race", status: "active" });
}

test.skipIf(pgOnly)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL): the per-minute rate limit of a member: 50 parallel requests over three nodes at limit-1 give exactly one success", async () => {
  const ws = await raceWorkspace();
  // RATE - 1 requests first, spread over the nodes
  const before: number[] = [];
  for (let i = 0; i < RATE - 1; i += 25) before.push(...(await race(Math.min(25, RATE - 1 - i), (n) => call(n, "GET", "/api/v1/chatapp", ws.token))));
  expect(tally(before)).toEqual({ 200: RATE - 1 });
  const statuses = await race(RACE, (n) => call(n, "GET", "/api/v1/chatapp", ws.token));
  expect(tally(statuses)).toEqual({ 200: 1, 429: RACE - 1 });
}, 60_000);

test.skipIf(pgOnly)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL): the daily API-request quota: 50 parallel API-key requests over three nodes at limit-1 give exactly one success", async () => {
  const ws = await raceWorkspace();
  const key = (await call(nodes[0]!.url, "POST", "/api/api-keys", ws.token, { name: "race" })).body.data.key as string;
  await sql`INSERT INTO usage_counters (workspace_id, metric, period, used) VALUES (${ws.workspaceId}, 'apiRequestsPerDay', ${usagePeriod("apiRequestsPerDay", new Date())}, 9)`;
  const statuses = await race(RACE, (n) => fetch(`${n}/api/external/contacts`, { headers: { "x-api-key": key } }));
  expect(tally(statuses)).toEqual({ 200: 1, 403: RACE - 1 });
  const [row] = await sql`SELECT used FROM usage_counters WHERE workspace_id = ${ws.workspaceId} AND metric = 'apiRequestsPerDay'`;
  expect(Number(row!.used)).toBe(10);
}, 60_000);

test.skipIf(pgOnly)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL): the auth routes' limit per address: 50 parallel logins over three nodes at limit-1 give exactly one past the limit", async () => {
  // the per-address limit (default 10 a minute): 9 first, then the race; a login that passes the limit answers 401
  const body = { email: "nobody@cluster.test", password: "wrong password" };
  const login = (n: string) => fetch(`${n}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  for (let i = 0; i < 9; i++) expect((await login(nodes[i % 3]!.url)).status).not.toBe(429);
  const statuses = await race(RACE, (n) => login(n));
  expect(statuses.filter((s) => s === 429).length).toBe(RACE - 1);
}, 60_000);

test.skipIf(pgOnly)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL): plan quotas: 50 parallel sends at messages limit-1 and 50 parallel session creations at sessions limit-1, over three nodes, give exactly one success each", async () => {
  const ws = await raceWorkspace();
  const session = await linkedSession(nodes[0]!.url, ws.token, "919822200001");
  // outbound messages are counted in message_usage, in the transaction that accepts a send
  await sql`INSERT INTO message_usage (workspace_id, period, outbound) VALUES (${ws.workspaceId}, ${usagePeriod("messagesPerMonth", new Date())}, 9)`;
  const sends = await race(RACE, (n, i) => call(n, "POST", "/api/v1/messages/send", ws.token, { sessionId: session, to: `+9198220${String(10000 + i)}`, body: `race ${i}` }));
  expect(sends.filter((s) => s < 300).length).toBe(1);
  expect(sends.filter((s) => s === 403).length).toBe(RACE - 1);
  const [used] = await sql`SELECT outbound FROM message_usage WHERE workspace_id = ${ws.workspaceId}`;
  expect(Number(used!.outbound)).toBe(10);

  // sessions: 2 allowed, one exists; the race creates one more and no other
  const creates = await race(RACE, (n, i) => call(n, "POST", "/api/v1/chatapp", ws.token, { name: `race-${i}` }));
  expect(tally(creates)).toEqual({ 201: 1, 403: RACE - 1 });
  const [n] = await sql`SELECT count(*)::int AS n FROM chat_sessions WHERE workspace_id = ${ws.workspaceId}`;
  expect(n!.n).toBe(2);
}, 60_000);
