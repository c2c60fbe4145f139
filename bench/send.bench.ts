// POST /api/v1/messages/send (API key, text): accepted (202) per second at full load, and p99
// latency at half that rate, against a bare Bun.serve that parses the body and commits one
// INSERT into SQLite (same pragmas). The session's sender runs with the default pacing, as in
// production. Children: Parley, bare; load: wrk, 64 connections (max), and wrk paced by a Lua
// delay() to half Parley's max rate (fixed rate: see fixedRate; autocannon when wrk is missing).
import { fixedRate, hasWrk, maxLoad, startChild } from "./lib/proc.ts";
import { median, report, type Row } from "./lib/report.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

const bare = await startChild<{ port: number }>("serve-bare.ts", ["insert"]);
const parley = await startChild<{ port: number; apiKey: string; sessionIds: string[] }>("serve-parley.ts", [JSON.stringify({ jobs: true })]);
const body = JSON.stringify({ session_id: parley.info.sessionIds[0], to: "919812345678", type: "text", body: "Hello from the benchmark" });
const post = { method: "POST", body, headers: { "content-type": "application/json", "x-api-key": parley.info.apiKey } };
const P = `http://127.0.0.1:${parley.info.port}/api/v1/messages/send`;
const B = `http://127.0.0.1:${bare.info.port}/`;

await maxLoad(B, { ...post, seconds: 1 });
await maxLoad(P, { ...post, seconds: 1 });
const max: { parley: number; baseline: number }[] = [];
const p99: { parley: number; baseline: number }[] = [];
const achieved: { target: number; parley: number; baseline: number }[] = [];
let non2xx = 0;
let bareRest: number | undefined;
let parleyRest: number | undefined;
for (let i = 0; i < ROUNDS; i++) {
  const b = await maxLoad(B, { ...post, seconds: SECONDS });
  const p = await maxLoad(P, { ...post, seconds: SECONDS });
  non2xx += p.non2xx;
  max.push({ parley: p.rps, baseline: b.rps });
  const half = Math.max(100, Math.round(p.rps / 2));
  // the same connections and target rate for both; each server's wait is calibrated to reach it
  const bh = await fixedRate(B, half, { ...post, seconds: SECONDS, restMs: bareRest });
  const ph = await fixedRate(P, half, { ...post, seconds: SECONDS, restMs: parleyRest });
  bareRest = bh.restMs;
  parleyRest = ph.restMs;
  non2xx += ph.non2xx;
  p99.push({ parley: ph.p99, baseline: bh.p99 });
  achieved.push({ target: half, parley: ph.rps, baseline: bh.rps });
}
await parley.stop();
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
    goal: "≥ 10,000/s",
    met: rate >= 10_000,
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
    goal: "< 10 ms",
    met: lat < 10,
    rounds: p99,
    lowerIsBetter: true,
    notes: rateNote(),
  },
];
const generator = hasWrk ? "wrk 64 connections; at half rate paced by a Lua delay()" : "autocannon 64 connections; autocannon -R";
report("send", `Send: accepted rate and p99 at half rate (${generator}; from source)`, rows);

/** The rate each fixed-rate run achieved, against its target (it should be within ~5%). */
function rateNote(): string {
  const pct = (r: number, t: number) => `${r >= t ? "+" : ""}${(((r - t) / t) * 100).toFixed(1)}%`;
  const each = achieved.map((a) => `target ${Math.round(a.target)}/s: Parley ${Math.round(a.parley)}/s (${pct(a.parley, a.target)}), bare ${Math.round(a.baseline)}/s (${pct(a.baseline, a.target)})`);
  const off = achieved.some((a) => Math.abs(a.parley / a.target - 1) > 0.05 || Math.abs(a.baseline / a.target - 1) > 0.05);
  return `achieved rates ${off ? "NOT all" : "all"} within 5% of the target: ${each.join("; ")}`;
}
