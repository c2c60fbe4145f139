// Inbound -> webhook latency at fixed rates (500/s and 1,000/s inbound messages): the bench
// injects each message through the sim network's route of the compiled binary (POST
// /api/sim/sessions/:id/inbound), Parley stores it (contact, conversation, message, outbox row
// in one transaction) and the dispatcher POSTs message_received to a receiver in its own
// process, which measures arrival minus injection. Baseline in the same run: a bare relay in
// this process that POSTs the same kind of body to the same receiver at the same rate. The
// current binary and the previous release's are measured interleaved with it, round by round.
import { benchEngine } from "./lib/engine.ts";
import { latencyGoal, REFERENCE } from "./lib/goals.ts";
import { startChild } from "./lib/proc.ts";
import { median, percentile, report, type Row } from "./lib/report.ts";
import { startParley, type Parley } from "./lib/serve-parley.ts";
import { targets } from "./lib/targets.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATES = (process.env.BENCH_INBOUND_RATE ?? "500,1000").split(",").map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const TICK_MS = 5;
const PG = benchEngine() === "postgres";

const receiver = await startChild<{ port: number }>("receiver.ts");
const url = `http://127.0.0.1:${receiver.info.port}/hook`;
const bins = targets();
const env = { PARLEY_WEBHOOK_ALLOW_HTTP: "true", PARLEY_WEBHOOK_ALLOW_PRIVATE: "true" };
async function withHook(p: Parley): Promise<Parley> {
  const r = await fetch(`${p.base}/api/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${p.token}` },
    body: JSON.stringify({ name: "bench", url, events: ["message_received"] }),
  });
  if (r.status !== 201 && r.status !== 200) throw new Error(`create webhook: ${r.status} ${await r.text()}`);
  return p;
}
const current = await withHook(await startParley(bins.current, { env }));
const previous = bins.previous ? await withHook(await startParley(bins.previous, { env })) : undefined;
const now = () => performance.timeOrigin + performance.now();

/** Calls `send` rate times a second for SECONDS, in ticks; returns when all were issued. */
async function atRate(rate: number, send: (i: number) => void): Promise<void> {
  const total = rate * SECONDS;
  const t0 = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
    while (sent < due) send(sent++);
    await Bun.sleep(TICK_MS);
  }
}

async function collect(expected: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 4000 && out.length < expected; i++) {
    await Bun.sleep(5);
    out.push(...((await (await fetch(`http://127.0.0.1:${receiver.info.port}/stats`)).json()) as number[]));
  }
  return out;
}

async function parleyRound(p: Parley, rate: number): Promise<number[]> {
  const pending: Promise<unknown>[] = [];
  const inbound = `${p.base}/api/sim/sessions/${p.sessionIds[0]}/inbound`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${p.token}` };
  await atRate(rate, (i) => {
    const body = JSON.stringify({ from: `9198${String(10_000_000 + (i % 500))}`, type: "text", text: `t=${now()}` });
    pending.push(fetch(inbound, { method: "POST", headers, body }).then((r) => r.arrayBuffer()));
  });
  await Promise.all(pending);
  return collect(rate * SECONDS);
}

async function bareRound(rate: number): Promise<number[]> {
  const pending: Promise<unknown>[] = [];
  await atRate(rate, () => {
    const body = JSON.stringify({ event: "message_received", timestamp: new Date().toISOString(), data: { sessionId: "bench", text: `t=${now()}` } });
    pending.push(fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.arrayBuffer()));
  });
  await Promise.all(pending);
  return collect(rate * SECONDS);
}

// warm-up
await bareRound(RATES[0]!);
for (const p of [current, previous]) if (p) await parleyRound(p, RATES[0]!);
// PostgreSQL: the statistics autovacuum gathers in a database's first minute (its first pass),
// which the bench's new databases, a minute old when measured, may not have yet: without them
// the planner takes the warm-up's thousands of rows for a handful, and the group's reads by
// network id, phone and address for filters over a session's or a workspace's rows
if (PG) {
  for (const p of [current, previous]) {
    if (!p?.databaseUrl) continue;
    const sql = new Bun.SQL(p.databaseUrl);
    await sql.unsafe("ANALYZE");
    await sql.close();
  }
}
const rows: Row[] = [];
for (const rate of RATES) {
  const rounds: { parley: number[]; baseline: number[]; previous?: number[] }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    rounds.push({ baseline: await bareRound(rate), parley: await parleyRound(current, rate), previous: previous ? await parleyRound(previous, rate) : undefined });
  }
  const row = (p: number) => {
    const at = (side: "parley" | "baseline" | "previous") => rounds.map((r) => (r[side] ? percentile(r[side]!, p) : undefined));
    const pr = at("parley") as number[];
    const br = at("baseline") as number[];
    const vr = at("previous");
    return {
      parley: median(pr),
      baseline: median(br),
      rounds: pr.map((v, i) => ({ parley: v, baseline: br[i]!, previous: vr[i] })),
      lowerIsBetter: true,
      ratio: median(pr.map((v, i) => br[i]! / v)),
    };
  };
  const delivered = (side: "parley" | "previous") => median(rounds.map((r) => r[side]?.length ?? 0));
  const p99 = row(99);
  rows.push({ scenario: `inbound->webhook p50 at ${rate}/s`, ...row(50), unit: "ms", baselineWhat: "bare relay: fetch POST at the same rate" });
  rows.push({
    scenario: `inbound->webhook p99 at ${rate}/s`,
    ...p99,
    unit: "ms",
    baselineWhat: "bare relay: fetch POST at the same rate",
    ...(PG && rate === 500 ? latencyGoal(p99.parley, p99.baseline, 50, REFERENCE.bareRelayP99Ms) : !PG && rate === 1000 ? latencyGoal(p99.parley, p99.baseline, 25, REFERENCE.bareRelayP99Ms) : {}),
    notes: `ratio = bare / Parley (latency: smaller is better); deliveries received per round (median) of ${rate * SECONDS}: current ${delivered("parley")}${previous ? `, previous ${delivered("previous")}` : ""}`,
  });
}
await current.stop();
await previous?.stop();
await receiver.stop();
report("inbound", `Inbound -> webhook at ${RATES.join(" and ")}/s for ${SECONDS} s (compiled binaries; injected through the sim route; receiver in its own process)`, rows);
