import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { freshPostgres, TEST_PG_URL } from "../helpers/postgres.ts";
import { call, connectWs, linkedSession, seedWorkspace, startNodes, until, type SeededWorkspace, type WsClient } from "../helpers/cluster.ts";
import type { ChildServer } from "../helpers/process.ts";

// Two real `parley serve` processes on one PostgreSQL database: a workspace's WebSocket clients
// get its events whichever node committed them, in commit order, once each.

const pgOnly = !TEST_PG_URL;
let nodes: ChildServer[] = [];
let drop: (() => Promise<void>) | undefined;
let url = "";
let ws: SeededWorkspace;
let other: SeededWorkspace;

beforeAll(async () => {
  if (pgOnly) return;
  const pg = await freshPostgres();
  url = pg.url;
  drop = pg.drop;
  nodes = await startNodes(url, 2);
  ws = await seedWorkspace(url);
  other = await seedWorkspace(url);
}, 60_000);
afterAll(async () => {
  for (const n of nodes) await n.stop();
  await drop?.();
}, 60_000);

const texts = (c: WsClient) => c.events.filter((e) => e.event === "message_received").map((e) => e.data.text as string);

test.skipIf(pgOnly)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL): events committed on node A reach the clients on node B in order, once each, and never another workspace's", async () => {
  const [a, b] = nodes as [ChildServer, ChildServer];
  const onA = await connectWs(a.url, ws.token);
  const onB = await connectWs(b.url, ws.token);
  const foreign = await connectWs(b.url, other.token);
  const session = await linkedSession(a.url, ws.token, "919811100001");
  // the session's own events (QR, status, connected) reached B too
  await until(() => onB.events.some((e) => e.event === "session_connected" && e.data.sessionId === session));
  expect(onB.events.some((e) => e.event === "session_qr")).toBe(true);

  const sent: string[] = [];
  for (let i = 0; i < 30; i++) {
    const text = i === 15 ? `big ${"x".repeat(20_000)}` : `hello ${i}`; // too large for a notification: read from its row
    sent.push(text);
    const r = await call(a.url, "POST", `/api/sim/sessions/${session}/inbound`, ws.token, { from: "919800000001", text });
    expect(r.status).toBe(200);
  }
  await until(() => texts(onB).length >= sent.length);
  await Bun.sleep(200); // nothing more arrives (no duplicates)
  expect(texts(onB)).toEqual(sent);
  expect(texts(onA)).toEqual(sent); // the producing node told its own clients once, not again through the database
  expect(foreign.events).toEqual([]);
  for (const c of [onA, onB, foreign]) c.close();
}, 60_000);

test.skipIf(pgOnly)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL): inbound messages stored together (one group commit) reach node B's clients once each, in node A's order", async () => {
  const [a, b] = nodes as [ChildServer, ChildServer];
  const onA = await connectWs(a.url, ws.token);
  const onB = await connectWs(b.url, ws.token);
  const session = await linkedSession(a.url, ws.token, "919811100003");
  await until(() => onB.events.some((e) => e.event === "session_connected" && e.data.sessionId === session));
  const sent = Array.from({ length: 24 }, (_, i) => (i === 12 ? `together big ${"y".repeat(20_000)}` : `together ${i}`));
  const answers = await Promise.all(sent.map((text, i) => call(a.url, "POST", `/api/sim/sessions/${session}/inbound`, ws.token, { from: `9198000001${String(i).padStart(2, "0")}`, text })));
  expect(answers.map((r) => r.status)).toEqual(sent.map(() => 200));
  const mine = (c: WsClient) => texts(c).filter((t) => t.startsWith("together"));
  await until(() => mine(onB).length >= sent.length && mine(onA).length >= sent.length);
  await Bun.sleep(200); // nothing more arrives (no duplicates)
  expect([...mine(onB)].sort()).toEqual([...sent].sort());
  expect(mine(onB)).toEqual(mine(onA));
  const updates = (c: WsClient) => c.events.filter((e) => e.event === "conversation_updated").map((e) => e.data.id as string);
  expect(updates(onB)).toEqual(updates(onA));
  for (const c of [onA, onB]) c.close();
}, 60_000);

test.skipIf(pgOnly)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL): a node whose listening connection is cut catches up from the last event it saw", async () => {
  const [a, b] = nodes as [ChildServer, ChildServer];
  const onB = await connectWs(b.url, ws.token);
  const session = await linkedSession(a.url, ws.token, "919811100002");
  await until(() => onB.events.some((e) => e.event === "session_connected" && e.data.sessionId === session));
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  const sent: string[] = [];
  try {
    for (let round = 0; round < 3; round++) {
      // both listeners are (back) up, then every node's listening connection is dropped, as by a
      // database restart, while events keep coming
      let listeners: { pid: number }[] = [];
      await until(async () => {
        listeners = await admin`SELECT pid FROM pg_stat_activity WHERE application_name = 'parley-events' AND datname = current_database()`;
        return listeners.length === 2;
      });
      for (const { pid } of listeners) expect((await admin`SELECT pg_terminate_backend(${pid}) AS done`)[0]!.done).toBe(true);
      for (let i = 0; i < 5; i++) {
        const text = `round ${round} #${i}`;
        sent.push(text);
        expect((await call(a.url, "POST", `/api/sim/sessions/${session}/inbound`, ws.token, { from: "919800000002", text })).status).toBe(200);
      }
    }
    await until(() => texts(onB).length >= sent.length);
    await Bun.sleep(200);
    expect(texts(onB)).toEqual(sent);
    // both listeners are back
    await until(async () => (await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'parley-events' AND datname = current_database()`)[0]!.n === 2);
  } finally {
    await admin.end();
    onB.close();
  }
  expect(b.logs()).toContain("event listener connection lost");
}, 60_000);
