// The inbound pipeline at full load: inbound messages injected through the compiled binary's sim
// route (POST /api/sim/sessions/:id/inbound, which answers once the message is stored: contact,
// conversation, message, webhook outbox row and the live event, in one transaction), as many as
// the server takes, against a bare Bun.serve that parses the same body and commits the same four
// writes (contact and conversation upserts, the message, an outbox row) in one SQLite
// transaction (serve-bare.ts `inbound`; SQLite on either engine, as the send bench's bare), and
// against the previous release's binary, interleaved round by round. Goal: half of bare.
// One sender writing again and again (its contact and conversation exist: each message updates
// them), the common case of a busy inbox.
import { withCpu } from "./lib/cpu.ts";
import { benchEngine } from "./lib/engine.ts";
import { maxLoad, startChild } from "./lib/proc.ts";
import { median, report, type Row } from "./lib/report.ts";
import { startParley, type Parley } from "./lib/serve-parley.ts";
import { targets } from "./lib/targets.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PG = benchEngine() === "postgres";

const bins = targets();
const bare = await startChild<{ port: number; pid: number }>("serve-bare.ts", ["inbound"]);
const env = { PARLEY_WEBHOOK_ALLOW_HTTP: "true", PARLEY_WEBHOOK_ALLOW_PRIVATE: "true" };

/** A webhook subscribed to message_received (its deliveries fail to a closed port and retry later: the outbox row is what counts). */
async function withHook(p: Parley): Promise<Parley> {
  const r = await fetch(`${p.base}/api/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${p.token}` },
    body: JSON.stringify({ name: "bench", url: "http://127.0.0.1:9/hook", events: ["message_received"] }),
  });
  if (r.status !== 201 && r.status !== 200) throw new Error(`create webhook: ${r.status} ${await r.text()}`);
  return p;
}
const current = await withHook(await startParley(bins.current, { env }));
const previous = bins.previous ? await withHook(await startParley(bins.previous, { env })) : undefined;

/** One body for every request (the load tools send one): the same sender again and again, its contact and conversation exist. */
const body = JSON.stringify({ from: "919812300001", type: "text", text: "Hello from the pipeline bench" });

const inboundOf = (p: Parley) => `${p.base}/api/sim/sessions/${p.sessionIds[0]}/inbound`;
const headersOf = (p: Parley) => ({ "content-type": "application/json", authorization: `Bearer ${p.token}` });
const B = `http://127.0.0.1:${bare.info.port}/`;

type Side = { parley: number; baseline: number; previous?: number };
async function round(): Promise<{ rps: Side; cpu: Side; non2xx: number }> {
  const o = { method: "POST", body, seconds: SECONDS, connections: CONNECTIONS };
  const b = await withCpu(bare.info.pid, SECONDS, () => maxLoad(B, { ...o, headers: { "content-type": "application/json" } }));
  const c = await withCpu(current.pid, SECONDS, () => maxLoad(inboundOf(current), { ...o, headers: headersOf(current) }));
  const p = previous ? await withCpu(previous.pid, SECONDS, () => maxLoad(inboundOf(previous), { ...o, headers: headersOf(previous) })) : undefined;
  return {
    rps: { parley: c.rps, baseline: b.rps, previous: p?.rps },
    cpu: { parley: c.cpuUs, baseline: b.cpuUs, previous: p?.cpuUs },
    non2xx: c.non2xx + (p?.non2xx ?? 0) + b.non2xx,
  };
}

const rows: Row[] = [];
for (const shape of [{ name: "one sender again and again" }]) {
  await round(); // warm-up, not counted
  const rounds: Awaited<ReturnType<typeof round>>[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
  const rps = rounds.map((r) => r.rps);
  const cpu = rounds.map((r) => r.cpu);
  const ratio = median(rps.map((x) => x.parley / x.baseline));
  const non2xx = rounds.reduce((a, r) => a + r.non2xx, 0);
  rows.push({
    scenario: `inbound pipeline, ${shape.name} (stored/s, full load)`,
    parley: median(rps.map((x) => x.parley)),
    baseline: median(rps.map((x) => x.baseline)),
    ratio,
    unit: "msg/s",
    baselineWhat: "bare Bun.serve + contact, conversation, message and outbox row in one SQLite transaction",
    goal: "≥ 0.5 of bare",
    met: ratio >= 0.5,
    rounds: rps,
    notes: `${CONNECTIONS} connections${PG ? "; Parley on PostgreSQL, the bare on SQLite" : ""}${non2xx ? `; ${non2xx} non-2xx answers` : ""}`,
  });
  rows.push({
    scenario: `inbound pipeline, ${shape.name}: CPU per stored message`,
    parley: median(cpu.map((x) => x.parley)),
    baseline: median(cpu.map((x) => x.baseline)),
    ratio: median(cpu.map((x) => x.baseline / x.parley)),
    unit: "µs",
    baselineWhat: "the same bare server",
    rounds: cpu,
    lowerIsBetter: true,
  });
}
await current.stop();
await previous?.stop();
await bare.stop();
report("pipeline", `Inbound pipeline at full load for ${SECONDS} s a round (compiled binaries; injected through the sim route)`, rows);
