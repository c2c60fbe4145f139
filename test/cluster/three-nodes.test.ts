// Three real `parley serve` nodes on one PostgreSQL database, linked to one `parley sim-network`
// process (docs/cluster.md, docs/sim-network.md). What the network saw is the proof: every send it
// accepted is a line of sim-sent.jsonl, every link opened or closed a line of sim-links.jsonl.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectWs, type WsClient } from "../helpers/cluster.ts";
import { prepareDataDir, serverData, until, type ServerData } from "../helpers/crash.ts";
import { testEngine } from "../helpers/postgres.ts";
import { BUN, ROOT, type ChildServer } from "../helpers/process.ts";
import { readSimSent } from "../helpers/sim-sent.ts";
import { caller, pair, readLinks, spawnSimNetwork, type Caller, type LinkLine, type SimNetworkProcess } from "../helpers/sim-network.ts";
import { startReceiver, type Receiver } from "../net/receiver.ts";

const pgOnly = testEngine !== "postgres";
const ENV = {
  PARLEY_SEND_MIN_GAP_MS: "0",
  PARLEY_SEND_JITTER_MS: "0",
  PARLEY_JOB_POLL_MS: "100",
  PARLEY_LOG_LEVEL: "warn",
  PARLEY_RATE_LIMIT_PER_MINUTE: "1000000",
  PARLEY_WEBHOOK_ALLOW_HTTP: "true",
  PARLEY_WEBHOOK_ALLOW_PRIVATE: "true",
  PARLEY_WEBHOOK_TIMEOUT_MS: "2000",
  PARLEY_WEBHOOK_RETRY_SCHEDULE: "0,1,1,1,1,1,1,1,1,1,1,1",
};
const IDS = ["node-1", "node-2", "node-3"] as const;

let net: SimNetworkProcess;
let data: ServerData;
let rx: Receiver;
let token = "";
const nodes = new Map<string, ChildServer>();
const contacts: { id: string; phone: string }[] = [];
const sessions: string[] = [];

async function startNode(id: string): Promise<ChildServer> {
  const s = await data.spawn({ env: { ...ENV, PARLEY_NODE_ID: id }, args: ["--sim-url", net.url], dataDir: mkdtempSync(join(tmpdir(), `parley-${id}-`)) });
  nodes.set(id, s);
  return s;
}
const via = (id: string): Caller => caller(() => nodes.get(id)!, token);

/** Live leases: session -> node. */
async function holders(): Promise<Map<string, string>> {
  const rows = await data.store().prepare<{ s: string; n: string }>("SELECT session_id AS s, node_id AS n FROM session_leases WHERE expires_at > ?").all(Date.now());
  return new Map(rows.map((r) => [r.s, r.n]));
}

function nodesJson(): { id: string; alive: boolean; sessions: string[] }[] {
  const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), "nodes", "--json", "--data-dir", data.dataDir], { cwd: ROOT, env: { ...process.env, PARLEY_DATABASE_URL: data.databaseUrl! }, stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`parley nodes exited ${p.exitCode}: ${p.stderr.toString()}`);
  return JSON.parse(p.stdout.toString());
}

/** Replays the link log in order; returns the numbers (or sessions) that ever had two live links at once. */
function doubleLinks(lines: LinkLine[]): string[] {
  const phoneOf = new Map<string, string>(); // session -> number, once known
  for (const l of lines) if (l.phone) phoneOf.set(l.sessionId, l.phone);
  const live = new Map<string, number>(); // key -> live links
  const bad = new Set<string>();
  for (const l of lines) {
    const key = phoneOf.get(l.sessionId) ?? l.sessionId;
    const n = (live.get(key) ?? 0) + (l.event === "open" ? 1 : -1);
    live.set(key, n);
    if (n > 1) bad.add(key);
  }
  return [...bad];
}

/** Sends to `phones` in the network's log, counted per recipient. */
function sentCounts(phones: string[]): Map<string, number> {
  const want = new Set(phones);
  const counts = new Map<string, number>();
  for (const e of readSimSent(net.dataDir)) if (want.has(e.to)) counts.set(e.to, (counts.get(e.to) ?? 0) + 1);
  return counts;
}

async function campaign(name: string, recipients: { id: string }[], perMinute: number): Promise<string> {
  const call = via([...nodes.keys()][0]!);
  const created = await call("POST", "/api/v1/campaigns", {
    name,
    sessionIds: sessions,
    message: { type: "text", body: "Hi {{name}}" },
    audience: { contactIds: recipients.map((r) => r.id) },
    pacing: { perMinute, jitterPercent: 0, warmup: false },
  });
  expect({ status: created.status, error: created.body.message }).toEqual({ status: 201, error: expect.any(String) });
  const id = created.body.data.id as string;
  const started = await call("POST", `/api/v1/campaigns/${id}/start`);
  expect({ status: started.status, error: started.body.message }).toEqual({ status: 200, error: expect.any(String) });
  return id;
}

/** Any live node's answer (the one asked may be down for a moment). */
async function ask(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  for (let i = 0; ; i++) {
    const live = [...nodes.keys()];
    try {
      return await via(live[i % live.length]!)(method, path, body);
    } catch (err) {
      if (i > 100) throw err;
      await Bun.sleep(50);
    }
  }
}

async function completed(id: string, timeoutMs: number): Promise<any> {
  return until("campaign completed", async () => {
    const c = (await ask("GET", `/api/v1/campaigns/${id}`)).body.data;
    return c?.status === "completed" ? c : null;
  }, timeoutMs);
}

/**
 * Waits until every expected event (`<type> <messageId>`) reached the receiver, then checks that
 * each arrived under exactly one delivery id (repeats of one delivery id are dropped first: an
 * attempt in flight on a killed node is made again by another under the same id).
 */
async function expectEachEventOnce(expected: string[]): Promise<void> {
  const arrived = () => {
    const byDelivery = new Map<string, string>();
    for (const r of rx.received) {
      const b = JSON.parse(r.body);
      byDelivery.set(r.headers.get("x-webhook-delivery-id")!, `${r.headers.get("x-webhook-event")} ${(b.data ?? b).messageId}`);
    }
    return [...byDelivery.values()];
  };
  await until("every webhook event", () => expected.every((e) => arrived().includes(e)), 60_000);
  await Bun.sleep(500);
  const per = new Map<string, number>();
  for (const e of arrived()) per.set(e, (per.get(e) ?? 0) + 1);
  for (const e of expected) expect(`${e}: ${per.get(e)}`).toBe(`${e}: 1`);
}

beforeAll(async () => {
  if (pgOnly) return;
  rx = startReceiver();
  rx.handler = () => new Response("ok");
  net = await spawnSimNetwork();
  data = await serverData("parley-three-");
  token = await prepareDataDir(data, async (db, ws) => {
    await db.prepare("UPDATE workspaces SET plan_id = 'pro', subscription_status = 'active' WHERE id = ?").run(ws);
    const now = Date.now();
    const insert = db.prepare("INSERT INTO contacts (id, workspace_id, phone, name, opted_out, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)");
    for (let i = 0; i < 120; i++) {
      const c = { id: Bun.randomUUIDv7(), phone: `9176${String(1_000_000 + i).padStart(8, "0")}` };
      await insert.run(c.id, ws, c.phone, `P${i}`, now, now);
      contacts.push(c);
    }
  });
  await startNode(IDS[0]);
  await Promise.all([startNode(IDS[1]), startNode(IDS[2])]);
}, 60_000);

afterAll(async () => {
  if (pgOnly) return;
  for (const s of nodes.values()) s.proc.kill("SIGKILL");
  await Promise.all([...nodes.values()].map((s) => s.proc.exited));
  await net?.stop();
  rx?.stop();
  await data?.close();
});

test.skipIf(pgOnly)(
  "PostgreSQL only: three nodes and one sim network: sessions paired through different nodes are held once each; an inbound message reaches WebSocket clients on all three nodes",
  async () => {
    // two sessions paired through each node
    for (let i = 0; i < 6; i++) sessions.push(await pair(via(IDS[i % 3]!), `91981117000${i}`, `s${i}`));
    const h = await until("every session held", async () => {
      const now = await holders();
      return sessions.every((s) => now.has(s)) ? now : null;
    }, 30_000);
    expect([...h.keys()].sort()).toEqual([...sessions].sort());
    // parley nodes --json: three live nodes, every session in exactly one node's list
    const listed = await until("listed once each", () => {
      const l = nodesJson();
      const all = l.flatMap((n) => n.sessions);
      return all.length === 6 && new Set(all).size === 6 ? l : null;
    }, 30_000);
    expect(listed.map((n) => [n.id, n.alive]).sort()).toEqual(IDS.map((id) => [id, true]));

    // webhook for what the later tests count (a connected session is needed to create it)
    const hook = await via(IDS[0])("POST", "/api/webhooks", { name: "cluster", url: `${rx.url}/hook`, events: ["message_sent", "message_received"] });
    expect({ status: hook.status, error: hook.body.message }).toEqual({ status: 201, error: expect.any(String) });

    const clients: WsClient[] = [];
    for (const id of IDS) clients.push(await connectWs(nodes.get(id)!.url, token));
    for (const [i, sid] of sessions.entries()) {
      const r = await via(IDS[(i + 1) % 3]!)("POST", `/api/sim/sessions/${sid}/inbound`, { from: "919822270001", text: `to all ${i}` });
      expect({ status: r.status, error: r.body.message }).toEqual({ status: 200, error: expect.any(String) });
    }
    const texts = (c: WsClient) => c.events.filter((e) => e.event === "message_received").map((e) => e.data.text as string);
    await until("every client got every message", () => clients.every((c) => texts(c).length >= 6), 10_000);
    await Bun.sleep(300); // nothing arrives twice
    for (const c of clients) expect(texts(c).sort()).toEqual(sessions.map((_, i) => `to all ${i}`).sort());
    for (const c of clients) c.close();
    expect(doubleLinks(readLinks(net.dataDir))).toEqual([]);
  },
  180_000,
);

test.skipIf(pgOnly)(
  "PostgreSQL only: a campaign over six sessions with a node killed (kill -9) in the middle completes with every recipient exactly once; the killed node's sessions reconnect elsewhere within 15 s; no number ever has two live links; no webhook event is lost",
  async () => {
    expect(sessions.length).toBe(6);
    const recipients = contacts.slice(0, 60);
    const phones = recipients.map((r) => r.phone);
    const id = await campaign("kill -9", recipients, 240);
    await until("some sent", () => [...sentCounts(phones).values()].length >= 15, 60_000);

    // kill the node holding the most sessions
    const before = await holders();
    const victim = IDS.map((n) => [n, [...before.values()].filter((v) => v === n).length] as const).sort((a, b) => b[1] - a[1])[0]![0];
    const theirs = [...before].filter(([, n]) => n === victim).map(([s]) => s);
    expect(theirs.length).toBeGreaterThan(0);
    const linksBefore = readLinks(net.dataDir).length;
    nodes.get(victim)!.proc.kill("SIGKILL");
    await nodes.get(victim)!.proc.exited;
    nodes.delete(victim);
    const killedAt = Date.now();

    // inbound messages for every session while the node is dead (answered once stored)
    const inboundIds: string[] = [];
    for (const [i, sid] of sessions.entries()) {
      const r = await until(`inbound ${i}`, async () => {
        const r = await ask("POST", `/api/sim/sessions/${sid}/inbound`, { from: "919822270002", text: `while dead ${i}` });
        return r.status === 200 ? r : null;
      }, 30_000);
      inboundIds.push(r.body.data.messageId);
    }

    // reconnected elsewhere: a live node holds each of them and the network has an open link from it
    await until("taken over and linked", () => {
      const opened = readLinks(net.dataDir).slice(linksBefore).filter((l) => l.event === "open" && l.node !== victim);
      return theirs.every((s) => opened.some((l) => l.sessionId === s));
    }, 30_000);
    const takeover = Date.now() - killedAt;
    expect(takeover).toBeLessThan(15_000);
    const h = await holders();
    for (const s of theirs) expect(h.get(s) === undefined || h.get(s) === victim).toBe(false);

    const done = await completed(id, 120_000);
    expect(done.stats).toMatchObject({ total: 60, pending: 0, sent: 60, failed: 0 });
    await Bun.sleep(500); // a late duplicate would show up here
    const counts = sentCounts(phones);
    for (const p of phones) expect(`${p}: ${counts.get(p) ?? 0}`).toBe(`${p}: 1`);
    const ours = readSimSent(net.dataDir).filter((e) => phones.includes(e.to));
    expect(new Set(ours.map((e) => e.clientMessageId)).size).toBe(60);
    expect(doubleLinks(readLinks(net.dataDir))).toEqual([]);

    // webhooks: every message_sent of the campaign and every message_received while the node was
    // dead arrived; after dropping repeats of one delivery id, each event arrived exactly once
    const sentRecipients = (await ask("GET", `/api/v1/campaigns/${id}/recipients?status=sent&limit=100`)).body.data as { messageId: string }[];
    expect(sentRecipients.length).toBe(60);
    const expected = [...sentRecipients.map((r) => `message_sent ${r.messageId}`), ...inboundIds.map((m) => `message_received ${m}`)];
    await expectEachEventOnce(expected);
    const deliveries = rx.received.length;
    const unique = new Set(rx.received.map((r) => r.headers.get("x-webhook-delivery-id"))).size;
    console.log(`three nodes: ${victim} killed holding ${theirs.length} sessions; reconnected elsewhere after ${takeover} ms; webhook requests ${deliveries}, unique delivery ids ${unique}`);

    // the killed node comes back under its id (the next test needs three nodes)
    await startNode(victim);
  },
  240_000,
);

test.skipIf(pgOnly)(
  "PostgreSQL only: a rolling restart of all three nodes (SIGTERM, start again, one at a time) during a campaign loses and doubles nothing, at the network and at a webhook receiver",
  async () => {
    const recipients = contacts.slice(60, 120);
    const phones = recipients.map((r) => r.phone);
    const linksBefore = readLinks(net.dataDir).length;
    const id = await campaign("rolling", recipients, 180);
    await until("some sent", () => [...sentCounts(phones).values()].length >= 5, 60_000);
    const handovers: number[] = [];
    for (const n of IDS) {
      const theirs = [...(await holders())].filter(([, v]) => v === n).map(([s]) => s);
      const t0 = Date.now();
      expect(await nodes.get(n)!.stop()).toBe(0);
      nodes.delete(n);
      await until(`${n}'s sessions handed over`, async () => {
        const h = await holders();
        return theirs.every((s) => h.has(s) && h.get(s) !== n);
      }, 20_000);
      handovers.push(Date.now() - t0);
      await startNode(n);
      // every session held by a live node before the next one stops
      await until("all held by live nodes", async () => {
        const h = await holders();
        return sessions.every((s) => nodes.has(h.get(s) ?? ""));
      }, 30_000);
    }
    const done = await completed(id, 120_000);
    expect(done.stats).toMatchObject({ total: 60, pending: 0, sent: 60, failed: 0 });
    await Bun.sleep(500);
    const counts = sentCounts(phones);
    for (const p of phones) expect(`${p}: ${counts.get(p) ?? 0}`).toBe(`${p}: 1`);
    expect(doubleLinks(readLinks(net.dataDir))).toEqual([]);
    const sentRecipients = (await ask("GET", `/api/v1/campaigns/${id}/recipients?status=sent&limit=100`)).body.data as { messageId: string }[];
    expect(sentRecipients.length).toBe(60);
    await expectEachEventOnce(sentRecipients.map((r) => `message_sent ${r.messageId}`));
    console.log(`rolling restart: handovers on SIGTERM ${handovers.join(", ")} ms; ${readLinks(net.dataDir).length - linksBefore} link lines`);
  },
  240_000,
);
