// The inbound pipeline at full load: inbound messages injected through the compiled binary's sim
// route (POST /api/sim/sessions/:id/inbound, which answers once the message is stored: contact,
// conversation, message, webhook outbox row and the live event, in one transaction), as many as
// the server takes, against a bare Bun.serve that parses the same body and commits the same four
// writes (contact and conversation upserts, the message, an outbox row) in one SQLite
// transaction (serve-bare.ts `inbound`; SQLite on either engine, as the send bench's bare), and
// against the previous release's binary, interleaved round by round. Goal: half of bare.
// One sender writing again and again (its contact and conversation exist: each message updates
// them), the common case of a busy inbox.
//
// Full load means each server's best: every server is loaded at each of the connection counts
// (BENCH_CONNECTIONS, default 32 and 128) and its best rate counts. The sim network answers an
// inbound message after its own latency (5 ms, as a network would), so 32 connections keep
// Parley waiting rather than working (its CPU per message falls as connections rise); the bare
// has no such wait and is at its best with fewer. After each measurement the bench waits until
// that server is idle: the webhook deliveries of what it was just sent (to a closed port) would
// otherwise run during the next server's measurement, on the same two cores. The webhook's
// retries wait an hour (the first attempt of each delivery is made at once, as always), so no
// round meets the retries of an earlier one.
import { untilIdle, withCpu } from "./lib/cpu.ts";
import { benchEngine } from "./lib/engine.ts";
import { maxLoad, startChild } from "./lib/proc.ts";
import { median, report, type Row } from "./lib/report.ts";
import { startParley, type Parley } from "./lib/serve-parley.ts";
import { targets } from "./lib/targets.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const LEVELS = (process.env.BENCH_CONNECTIONS ?? "32,128").split(",").map(Number);
const PG = benchEngine() === "postgres";

const bins = targets();
const bare = await startChild<{ port: number; pid: number }>("serve-bare.ts", ["inbound"]);
const env = { PARLEY_WEBHOOK_ALLOW_HTTP: "true", PARLEY_WEBHOOK_ALLOW_PRIVATE: "true", PARLEY_WEBHOOK_RETRY_SCHEDULE: "0,3600" };

/** A webhook subscribed to message_received (its deliveries fail to a closed port and retry an hour later: the outbox row is what counts). */
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
type Best = { rps: number; cpuUs: number; connections: number; non2xx: number };

/** One server at each load level, idle again after each; its best rate (and that level's CPU per message). */
async function best(pid: number, url: string, headers: Record<string, string>): Promise<Best> {
  let top: Best | undefined;
  let non2xx = 0;
  for (const connections of LEVELS) {
    const r = await withCpu(pid, SECONDS, () => maxLoad(url, { method: "POST", body, seconds: SECONDS, connections, headers }));
    non2xx += r.non2xx;
    if (!top || r.rps > top.rps) top = { rps: r.rps, cpuUs: r.cpuUs, connections, non2xx: 0 };
    await untilIdle(pid);
  }
  return { ...top!, non2xx };
}

async function round(): Promise<{ rps: Side; cpu: Side; levels: Side; non2xx: number }> {
  const b = await best(bare.info.pid, B, { "content-type": "application/json" });
  const c = await best(current.pid, inboundOf(current), headersOf(current));
  const p = previous ? await best(previous.pid, inboundOf(previous), headersOf(previous)) : undefined;
  return {
    rps: { parley: c.rps, baseline: b.rps, previous: p?.rps },
    cpu: { parley: c.cpuUs, baseline: b.cpuUs, previous: p?.cpuUs },
    levels: { parley: c.connections, baseline: b.connections, previous: p?.connections },
    non2xx: c.non2xx + (p?.non2xx ?? 0) + b.non2xx,
  };
}

const levelsOf = (rounds: { levels: Side }[], k: keyof Side) => rounds.map((r) => r.levels[k]).join("/");

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
    notes: `each server's best of ${LEVELS.join(" and ")} connections (best at, round by round: Parley ${levelsOf(rounds, "parley")}, bare ${levelsOf(rounds, "baseline")}${previous ? `, previous release ${levelsOf(rounds, "previous")}` : ""})${PG ? "; Parley on PostgreSQL, the bare on SQLite" : ""}${non2xx ? `; ${non2xx} non-2xx answers` : ""}`,
  });
  rows.push({
    scenario: `inbound pipeline, ${shape.name}: CPU per stored message`,
    parley: median(cpu.map((x) => x.parley)),
    baseline: median(cpu.map((x) => x.baseline)),
    ratio: median(cpu.map((x) => x.baseline / x.parley)),
    unit: "µs",
    baselineWhat: "the same bare server, at its best load level",
    rounds: cpu,
    lowerIsBetter: true,
  });
}
await current.stop();
await previous?.stop();
await bare.stop();
report("pipeline", `Inbound pipeline at full load for ${SECONDS} s a round (compiled binaries; injected through the sim route)`, rows);
