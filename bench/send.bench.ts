// POST /api/v1/messages/send (API key, text) on the compiled binary: accepted (202) per second
// at full load, and p99 latency at half that rate, against a bare Bun.serve that parses the
// body and commits one INSERT into SQLite (same pragmas), and against the previous release's
// binary, interleaved. The session's sender runs with the default pacing, as in production.
// Children: the binaries, bare; load: wrk, 64 connections (max), and wrk paced by a Lua delay()
// to half the current binary's max rate, the same target for all three (fixed rate: see
// fixedRate; autocannon when wrk is missing).
import { benchEngine } from "./lib/engine.ts";
import { withCpu } from "./lib/cpu.ts";
import { fixedRate, hasWrk, maxLoad, startChild } from "./lib/proc.ts";
import { goalOf, latencyGoal, REFERENCE } from "./lib/goals.ts";
import { median, report, type Row } from "./lib/report.ts";
import { startParley, type Parley } from "./lib/serve-parley.ts";
import { targets } from "./lib/targets.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const PG = benchEngine() === "postgres";

const bins = targets();
const bare = await startChild<{ port: number; pid: number }>("serve-bare.ts", ["insert"]);
const current = await startParley(bins.current);
const previous = bins.previous ? await startParley(bins.previous) : undefined;
const postOf = (p: Parley) => ({
  method: "POST",
  body: JSON.stringify({ session_id: p.sessionIds[0], to: "919812345678", type: "text", body: "Hello from the benchmark" }),
  headers: { "content-type": "application/json", "x-api-key": p.apiKey },
});
const url = (p: Parley) => `${p.base}/api/v1/messages/send`;
const B = `http://127.0.0.1:${bare.info.port}/`;
const post = postOf(current);

await maxLoad(B, { ...post, seconds: 1 });
for (const p of [current, previous]) if (p) await maxLoad(url(p), { ...postOf(p), seconds: 1 });
const max: { parley: number; baseline: number; previous?: number }[] = [];
const cpu: { parley: number; baseline: number; previous?: number }[] = [];
const p99: { parley: number; baseline: number; previous?: number }[] = [];
const achieved: { target: number; parley: number; baseline: number; previous?: number }[] = [];
let non2xx = 0;
let bareRest: number | undefined;
let parleyRest: number | undefined;
let previousRest: number | undefined;
for (let i = 0; i < ROUNDS; i++) {
  const b = await withCpu(bare.info.pid, SECONDS, () => maxLoad(B, { ...post, seconds: SECONDS }));
  const c = await withCpu(current.pid, SECONDS, () => maxLoad(url(current), { ...post, seconds: SECONDS }));
  const p = previous ? await withCpu(previous.pid, SECONDS, () => maxLoad(url(previous), { ...postOf(previous), seconds: SECONDS })) : undefined;
  cpu.push({ parley: c.cpuUs, baseline: b.cpuUs, previous: p?.cpuUs });
  non2xx += c.non2xx + (p?.non2xx ?? 0);
  max.push({ parley: c.rps, baseline: b.rps, previous: p?.rps });
  const half = Math.max(100, Math.round(c.rps / 2));
  // the same connections and target rate for all; each server's wait is calibrated to reach it
  const bh = await fixedRate(B, half, { ...post, seconds: SECONDS, restMs: bareRest });
  const ch = await fixedRate(url(current), half, { ...post, seconds: SECONDS, restMs: parleyRest });
  const ph = previous ? await fixedRate(url(previous), half, { ...postOf(previous), seconds: SECONDS, restMs: previousRest }) : undefined;
  bareRest = bh.restMs;
  parleyRest = ch.restMs;
  previousRest = ph?.restMs;
  non2xx += ch.non2xx + (ph?.non2xx ?? 0);
  p99.push({ parley: ch.p99, baseline: bh.p99, previous: ph?.p99 });
  achieved.push({ target: half, parley: ch.rps, baseline: bh.rps, previous: ph?.rps });
}
await current.stop();
await previous?.stop();
await bare.stop();

const rate = median(max.map((x) => x.parley));
const lat = median(p99.map((x) => x.parley));
const rows: Row[] = [
  {
    scenario: "send accepted (202/s, full load)",
    parley: rate,
    baseline: median(max.map((x) => x.baseline)),
    ratio: median(max.map((x) => x.parley / x.baseline)),
    unit: "req/s",
    baselineWhat: "bare Bun.serve + one committed INSERT",
    ...goalOf(rate, median(max.map((x) => x.baseline)), PG ? 5_000 : 10_000, REFERENCE.bareInsertPerS),
    rounds: max,
    notes: non2xx ? `${non2xx} non-2xx answers` : undefined,
  },
  {
    scenario: "send p99 at half of Parley's max rate",
    parley: lat,
    baseline: median(p99.map((x) => x.baseline)),
    ratio: median(p99.map((x) => x.baseline / x.parley)),
    unit: "ms",
    baselineWhat: "bare insert server at the same rate",
    ...latencyGoal(lat, median(p99.map((x) => x.baseline)), PG ? 20 : 10, REFERENCE.bareInsertP99Ms),
    rounds: p99,
    lowerIsBetter: true,
    notes: rateNote(),
  },
];
rows.push({
  scenario: "send at full load: CPU per accepted send",
  parley: median(cpu.map((x) => x.parley)),
  baseline: median(cpu.map((x) => x.baseline)),
  ratio: median(cpu.map((x) => x.baseline / x.parley)),
  unit: "µs",
  baselineWhat: "bare Bun.serve + one committed INSERT",
  lowerIsBetter: true,
  rounds: cpu,
  notes: "user + system CPU of the server process during the full load, per request answered (the sender's work on the accepted messages included); ratio = bare / Parley",
});
const generator = hasWrk ? "wrk 64 connections; at half rate paced by a Lua delay()" : "autocannon 64 connections; autocannon -R";
report("send", `Send: accepted rate and p99 at half rate (compiled binaries; ${generator})`, rows);

/** The rate each fixed-rate run achieved, against its target (it should be within ~5%). */
function rateNote(): string {
  const pct = (r: number, t: number) => `${r >= t ? "+" : ""}${(((r - t) / t) * 100).toFixed(1)}%`;
  const each = achieved.map((a) => `target ${Math.round(a.target)}/s: Parley ${Math.round(a.parley)}/s (${pct(a.parley, a.target)}), bare ${Math.round(a.baseline)}/s (${pct(a.baseline, a.target)})${a.previous === undefined ? "" : `, previous ${Math.round(a.previous)}/s (${pct(a.previous, a.target)})`}`);
  const off = achieved.some((a) => Math.abs(a.parley / a.target - 1) > 0.05 || Math.abs(a.baseline / a.target - 1) > 0.05);
  return `achieved rates ${off ? "NOT all" : "all"} within 5% of the target: ${each.join("; ")}`;
}
