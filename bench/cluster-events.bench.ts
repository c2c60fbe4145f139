// Events across nodes: two real `parley serve` processes on one PostgreSQL database; a message
// arrives through node A (the sim network's inbound route) and its message_received event goes
// to a WebSocket client on A (at commit) and one on B (through the database's LISTEN/NOTIFY).
// The node-to-node latency is B's arrival minus A's arrival (both clients in this process, one
// clock). Baseline: a bare LISTEN/NOTIFY round trip between two connections of postgres.js on
// the same server, measured in the same run. PostgreSQL: PARLEY_BENCH_DATABASE_URL (an admin
// URL), else PARLEY_TEST_DATABASE_URL, else a private server started with .ci/postgres.sh.
import postgres from "postgres";
import { call, connectWs, linkedSession, seedWorkspace, startNodes } from "../test/helpers/cluster.ts";
import { percentile, median, report } from "./lib/report.ts";
import { postgresAdmin } from "./lib/postgres-admin.ts";

const EVENTS = Number(process.env.BENCH_CLUSTER_EVENTS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const server = await postgresAdmin();
const admin = postgres(server.url, { max: 1, onnotice: () => {} });
const dbName = `parley_bench_events_${process.pid}`;
await admin.unsafe(`CREATE DATABASE ${dbName} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
const u = new URL(server.url);
u.pathname = `/${dbName}`;
const url = u.toString();

/** Bare LISTEN/NOTIFY: one connection notifies, another listens; ms from NOTIFY sent to heard. */
async function bareRound(): Promise<number[]> {
  const listener = postgres(url, { max: 1, onnotice: () => {} });
  const notifier = postgres(url, { max: 1, onnotice: () => {} });
  const sentAt = new Map<string, number>();
  const out: number[] = [];
  let wake: (() => void) | null = null;
  await listener.listen("bench_bare", (payload) => {
    const t0 = sentAt.get(payload);
    if (t0 !== undefined) out.push(performance.now() - t0);
    wake?.();
  });
  for (let i = 0; i < EVENTS; i++) {
    const heard = new Promise<void>((r) => (wake = r));
    const payload = `e${i}`;
    sentAt.set(payload, performance.now());
    await notifier`SELECT pg_notify('bench_bare', ${payload})`;
    await heard;
  }
  await listener.end();
  await notifier.end();
  return out;
}

// the bench's own requests are not what is measured: the per-minute limit is out of the way
const nodes = await startNodes(url, 2, { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" } });
process.on("exit", () => nodes.forEach((n) => n.proc.kill("SIGKILL")));
const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
const ws = await seedWorkspace(url);
const session = await linkedSession(a.url, ws.token, "919877700001");

async function parleyRound(round: number): Promise<number[]> {
  const onA = await connectWs(a.url, ws.token);
  const onB = await connectWs(b.url, ws.token);
  const arrival = (c: typeof onA, text: string) => c.events.find((e) => e.event === "message_received" && e.data.text === text)?.at;
  const out: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const text = `r${round} e${i}`;
    const r = await call(a.url, "POST", `/api/sim/sessions/${session}/inbound`, ws.token, { from: "919800000009", text });
    if (r.status !== 200) throw new Error(`inbound refused: ${JSON.stringify(r.body)}`);
    for (let wait = 0; (arrival(onA, text) === undefined || arrival(onB, text) === undefined) && wait < 5_000; wait++) await Bun.sleep(1);
    const ta = arrival(onA, text);
    const tb = arrival(onB, text);
    if (ta === undefined || tb === undefined) throw new Error(`event ${text} not delivered on ${ta === undefined ? "A" : "B"}`);
    out.push(Math.max(0, tb - ta));
  }
  onA.close();
  onB.close();
  return out;
}

await bareRound();
await parleyRound(-1);
const rounds: { parley: number[]; baseline: number[] }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ baseline: await bareRound(), parley: await parleyRound(i) });
for (const n of nodes) await n.stop();
await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
await server.stop();

const rows = (["p50", "p99"] as const).map((q) => {
  const p = q === "p50" ? 50 : 99;
  const per = rounds.map((r) => ({ parley: percentile(r.parley, p), baseline: percentile(r.baseline, p) }));
  const parley = median(per.map((r) => r.parley));
  const baseline = median(per.map((r) => r.baseline));
  return {
    scenario: `node-to-node event latency ${q} (${EVENTS} events a round)`,
    parley,
    baseline,
    ratio: baseline / parley,
    unit: "ms",
    baselineWhat: "bare LISTEN/NOTIFY round trip, postgres.js",
    goal: q === "p99" ? "p99 < 100 ms" : undefined,
    met: q === "p99" ? parley < 100 : undefined,
    rounds: per,
    lowerIsBetter: true,
    notes:
      q === "p99"
        ? "Parley's path: commit on A (row + pg_notify in the transaction), the notification to B's listening connection, B's hub, B's socket write, the client; measured as B's arrival minus A's arrival"
        : undefined,
  };
});
report("cluster-events", "Events across nodes: two nodes on one PostgreSQL, a WebSocket client on each", rows);
process.exit(0);
