// A cluster of real `parley serve` processes on one PostgreSQL database, linked to one
// `parley sim-network` process (docs/cluster.md). In the same run: one node alone, then three
// nodes, each time on a fresh database with six paired sessions.
// - send accepted: POST /api/v1/messages/send from the bench process (32 in flight, spread over
//   the nodes), messages a second; drain: the same messages from the first request to the last
//   one the network took (queue empty), messages a second. Per node = the cluster's / nodes.
// - takeover after kill -9 (three nodes): kill the node holding the most sessions; time until
//   every one of them has a new link from a live node at the sim network; the node starts again
//   under its id and the next round kills another. Median and max of BENCH_TAKEOVERS rounds.
// - handover on SIGTERM: the same with a clean stop.
// - cross-node event latency: an inbound message through node 1; its message_received arrives
//   at a WebSocket client on each node; the latency is the other nodes' arrival minus node 1's.
// - memory: each node's RSS after the load.
// Reported, not asserted. PostgreSQL: PARLEY_BENCH_DATABASE_URL (an admin URL), else
// PARLEY_TEST_DATABASE_URL, else a private server started with .ci/postgres.sh.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { call, connectWs, seedWorkspace } from "../test/helpers/cluster.ts";
import { spawnServer, type ChildServer } from "../test/helpers/process.ts";
import { caller, pair, readLinks, spawnSimNetwork } from "../test/helpers/sim-network.ts";
import { median, percentile, report, type Row } from "./lib/report.ts";
import { postgresAdmin } from "./lib/postgres-admin.ts";

const SENDS = Number(process.env.BENCH_CLUSTER_SENDS ?? 3000);
const TAKEOVERS = Number(process.env.BENCH_TAKEOVERS ?? 20);
const HANDOVERS = Number(process.env.BENCH_HANDOVERS ?? 5);
const EVENTS = Number(process.env.BENCH_CLUSTER_EVENTS ?? 200);
const SESSIONS = 6;
const IN_FLIGHT = 32;
const ENV = { PARLEY_SEND_MIN_GAP_MS: "0", PARLEY_SEND_JITTER_MS: "0", PARLEY_LOG_LEVEL: "warn", PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" };

const server = await postgresAdmin();
const admin = postgres(server.url, { max: 1, onnotice: () => {} });
const net = await spawnSimNetwork();
const everyNode: ChildServer[] = [];
process.on("exit", () => {
  everyNode.forEach((n) => n.proc.kill("SIGKILL"));
  net.proc.kill("SIGKILL");
});

async function freshDb(tag: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `parley_bench_cluster_${tag}_${process.pid}`;
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const u = new URL(server.url);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: async () => void (await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

interface Cluster {
  url: string;
  sql: postgres.Sql;
  nodes: Map<string, ChildServer>;
  token: string;
  sessions: string[];
  start(id: string): Promise<ChildServer>;
}

async function cluster(tag: string, ids: string[]): Promise<Cluster & { drop(): Promise<void> }> {
  const db = await freshDb(tag);
  const nodes = new Map<string, ChildServer>();
  const start = async (id: string) => {
    const s = await spawnServer({ dataDir: mkdtempSync(join(tmpdir(), `parley-bench-${id}-`)), env: { ...ENV, PARLEY_DATABASE_URL: db.url, PARLEY_NODE_ID: id }, args: ["--sim-url", net.url] });
    nodes.set(id, s);
    everyNode.push(s);
    return s;
  };
  await start(ids[0]!);
  await Promise.all(ids.slice(1).map(start));
  const ws = await seedWorkspace(db.url, { planId: "pro", status: "active" });
  const sessions: string[] = [];
  const list = [...nodes.values()];
  for (let i = 0; i < SESSIONS; i++) sessions.push(await pair(caller(() => list[i % list.length]!, ws.token), `9198${tag === "one" ? 1 : 3}770000${i}`, `s${i}`));
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  return {
    url: db.url,
    sql,
    nodes,
    token: ws.token,
    sessions,
    start,
    async drop() {
      for (const n of nodes.values()) n.proc.kill("SIGKILL");
      await Promise.all([...nodes.values()].map((n) => n.proc.exited));
      await sql.end();
      await db.drop();
    },
  };
}

/** Accepted msg/s and drained msg/s for SENDS messages spread over the nodes and sessions. */
async function sendAndDrain(c: Cluster): Promise<{ accepted: number; drain: number }> {
  const urls = [...c.nodes.values()].map((n) => n.url);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < SENDS; i = next++) {
        const r = await call(urls[i % urls.length]!, "POST", "/api/v1/messages/send", c.token, { session_id: c.sessions[i % c.sessions.length], to: "919812345678", body: `bench ${i}` });
        if (r.status !== 202) throw new Error(`send refused: ${JSON.stringify(r.body)}`);
      }
    }),
  );
  const accepted = SENDS / ((performance.now() - t0) / 1000);
  for (;;) {
    const [row] = await c.sql`SELECT count(*)::int AS n FROM messages WHERE status = 'queued'`;
    if (row!.n === 0) break;
    await Bun.sleep(5);
  }
  return { accepted, drain: SENDS / ((performance.now() - t0) / 1000) };
}

async function leases(c: Cluster): Promise<Map<string, string>> {
  const rows = await c.sql<{ s: string; n: string }[]>`SELECT session_id AS s, node_id AS n FROM session_leases WHERE expires_at > ${Date.now()}`;
  return new Map(rows.map((r) => [r.s, r.n]));
}

/** Stops the node holding the most sessions (kill -9 or SIGTERM); ms until each of its sessions has a new link from a live node. */
async function moveOnce(c: Cluster, signal: "SIGKILL" | "SIGTERM"): Promise<number> {
  const held = await leases(c);
  const ids = [...c.nodes.keys()];
  const victim = ids.map((n) => [n, [...held.values()].filter((v) => v === n).length] as const).sort((a, b) => b[1] - a[1])[0]![0];
  const theirs = [...held].filter(([, n]) => n === victim).map(([s]) => s);
  const seen = readLinks(net.dataDir).length;
  const node = c.nodes.get(victim)!;
  const t0 = Date.now();
  node.proc.kill(signal);
  await node.proc.exited;
  c.nodes.delete(victim);
  for (;;) {
    const opened = readLinks(net.dataDir).slice(seen).filter((l) => l.event === "open" && l.node !== victim);
    if (theirs.every((s) => opened.some((l) => l.sessionId === s))) break;
    if (Date.now() - t0 > 60_000) throw new Error(`sessions of ${victim} not taken over in 60 s`);
    await Bun.sleep(20);
  }
  const ms = Date.now() - t0;
  await c.start(victim);
  return ms;
}

/** Cross-node event latency samples (ms): other nodes' arrival minus node 1's. */
async function eventLatency(c: Cluster): Promise<number[]> {
  const list = [...c.nodes.values()];
  const clients = await Promise.all(list.map((n) => connectWs(n.url, c.token)));
  const arrival = (i: number, text: string) => clients[i]!.events.find((e) => e.event === "message_received" && e.data.text === text)?.at;
  const out: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const text = `latency ${i}`;
    const r = await call(list[0]!.url, "POST", `/api/sim/sessions/${c.sessions[i % c.sessions.length]}/inbound`, c.token, { from: "919800000009", text });
    if (r.status !== 200) throw new Error(`inbound refused: ${JSON.stringify(r.body)}`);
    for (let w = 0; clients.some((_, k) => arrival(k, text) === undefined) && w < 5_000; w++) await Bun.sleep(1);
    const t0 = arrival(0, text)!;
    for (let k = 1; k < clients.length; k++) out.push(Math.max(0, arrival(k, text)! - t0));
  }
  clients.forEach((x) => x.close());
  return out;
}

// one node alone
const one = await cluster("one", ["solo"]);
await sendAndDrain(one); // warm-up
const single = await sendAndDrain(one);
const singleRss = rssMiB(one.nodes.get("solo")!.proc.pid);
await one.drop();

// three nodes
const three = await cluster("three", ["node-1", "node-2", "node-3"]);
await sendAndDrain(three); // warm-up
const multi = await sendAndDrain(three);
const rss = [...three.nodes.values()].map((n) => rssMiB(n.proc.pid));
const latency = await eventLatency(three);
const handovers: number[] = [];
for (let i = 0; i < HANDOVERS; i++) handovers.push(await moveOnce(three, "SIGTERM"));
const takeovers: number[] = [];
for (let i = 0; i < TAKEOVERS; i++) takeovers.push(await moveOnce(three, "SIGKILL"));
await three.drop();
await net.stop();
await admin.end();
await server.stop();

const per = (x: number) => x / 3;
const rows: Row[] = [
  {
    scenario: `send accepted, per node (three nodes, ${SENDS} sends, ${IN_FLIGHT} in flight)`,
    parley: per(multi.accepted), baseline: single.accepted, ratio: per(multi.accepted) / single.accepted, unit: "msg/s", baselineWhat: "one node alone, same run",
    notes: `the three nodes together: ${multi.accepted.toFixed(0)} msg/s (${(multi.accepted / single.accepted).toFixed(2)}x one node)`,
  },
  {
    scenario: `drain (accepted and sent by the network), per node (three nodes, ${SENDS} sends)`,
    parley: per(multi.drain), baseline: single.drain, ratio: per(multi.drain) / single.drain, unit: "msg/s", baselineWhat: "one node alone, same run",
    notes: `the three nodes together: ${multi.drain.toFixed(0)} msg/s (${(multi.drain / single.drain).toFixed(2)}x one node)`,
  },
  {
    scenario: `takeover after kill -9, median of ${TAKEOVERS}`, parley: median(takeovers), baseline: 10_000, ratio: 10_000 / median(takeovers), unit: "ms", baselineWhat: "one lease (10 s)",
    goal: "< 15 s", met: Math.max(...takeovers) < 15_000, lowerIsBetter: true,
    notes: `max ${Math.max(...takeovers)} ms; every round: ${takeovers.join(", ")} ms`,
  },
  {
    scenario: `handover on SIGTERM, median of ${HANDOVERS}`, parley: median(handovers), baseline: 2_500, ratio: 2_500 / median(handovers), unit: "ms", baselineWhat: "one heartbeat (2.5 s)",
    goal: "< 5 s", met: Math.max(...handovers) < 5_000, lowerIsBetter: true,
    notes: `max ${Math.max(...handovers)} ms; every round: ${handovers.join(", ")} ms`,
  },
  ...([50, 99] as const).map((p): Row => ({
    scenario: `cross-node event latency p${p} (three nodes, ${EVENTS} events, node 1 to nodes 2 and 3)`, parley: percentile(latency, p), baseline: 100, ratio: 100 / percentile(latency, p), unit: "ms", baselineWhat: "the 100 ms goal",
    goal: p === 99 ? "p99 < 100 ms" : undefined, met: p === 99 ? percentile(latency, p) < 100 : undefined, lowerIsBetter: true,
  })),
  {
    scenario: "RSS per node after the load (mean of three)", parley: rss.reduce((a, b) => a + b, 0) / 3, baseline: singleRss, ratio: singleRss / (rss.reduce((a, b) => a + b, 0) / 3), unit: "MiB", baselineWhat: "one node alone after the same load",
    lowerIsBetter: true, notes: `each node: ${rss.map((r) => r.toFixed(0)).join(", ")} MiB`,
  },
];
report("cluster", "A cluster: three nodes on one PostgreSQL and one sim network process, against one node", rows);
process.exit(0);
