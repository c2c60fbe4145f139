// Requests per second through the whole app (GET /health; authenticated GETs: JWT
// /api/auth/profile, API key /api/external/sessions) of the compiled binary, against a bare
// Bun.serve answering JSON and against the previous release's binary. The servers are child
// processes; wrk is the load generator; rounds are interleaved (bare, current, previous, route
// by route) so machine noise hits all alike.
import { benchEngine } from "./lib/engine.ts";
import { median, report, type Row } from "./lib/report.ts";
import { withCpu } from "./lib/cpu.ts";
import { maxLoad, startChild } from "./lib/proc.ts";
import { startParley } from "./lib/serve-parley.ts";
import { targets } from "./lib/targets.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const GOAL = benchEngine() === "postgres" ? 0.35 : 0.5;

const bins = targets();
const bare = await startChild<{ port: number; pid: number }>("serve-bare.ts", ["json"]);
const current = await startParley(bins.current);
const previous = bins.previous ? await startParley(bins.previous) : undefined;
type P = typeof current;
const routes: { scenario: string; path: string; headers: (p: P) => Record<string, string>; goal?: string }[] = [
  { scenario: "GET /health", path: "/health", headers: () => ({}) },
  { scenario: "GET /api/auth/profile (JWT)", path: "/api/auth/profile", headers: (p) => ({ authorization: `Bearer ${p.token}` }), goal: `≥ ${GOAL} of bare` },
  { scenario: "GET /api/external/sessions (API key)", path: "/api/external/sessions", headers: (p) => ({ "x-api-key": p.apiKey }), goal: `≥ ${GOAL} of bare` },
];
const B = `http://127.0.0.1:${bare.info.port}/`;
const load = (p: P, r: (typeof routes)[number], seconds: number) => maxLoad(p.base + r.path, { seconds, headers: r.headers(p) });
// warm-up (JIT, statement caches)
await maxLoad(B, { seconds: 1 });
for (const r of routes) for (const p of [current, previous]) if (p) await load(p, r, 1);

type Round = { parley: number; baseline: number; previous?: number };
const rounds = routes.map(() => [] as Round[]);
const cpu = routes.map(() => [] as Round[]);
let errors = 0;
for (let i = 0; i < ROUNDS; i++) {
  for (let j = 0; j < routes.length; j++) {
    const b = await withCpu(bare.info.pid, SECONDS, () => maxLoad(B, { seconds: SECONDS }));
    const c = await withCpu(current.pid, SECONDS, () => load(current, routes[j]!, SECONDS));
    const p = previous ? await withCpu(previous.pid, SECONDS, () => load(previous, routes[j]!, SECONDS)) : undefined;
    errors += c.non2xx + (p?.non2xx ?? 0);
    rounds[j]!.push({ parley: c.rps, baseline: b.rps, previous: p?.rps });
    cpu[j]!.push({ parley: c.cpuUs, baseline: b.cpuUs, previous: p?.cpuUs });
  }
}
await current.stop();
await previous?.stop();
await bare.stop();

const throughput: Row[] = routes.map((r, j) => {
  const ratio = median(rounds[j]!.map((x) => x.parley / x.baseline));
  return {
    scenario: r.scenario,
    parley: median(rounds[j]!.map((x) => x.parley)),
    baseline: median(rounds[j]!.map((x) => x.baseline)),
    ratio,
    unit: "req/s",
    baselineWhat: "bare Bun.serve, same JSON",
    goal: r.goal,
    met: r.goal ? ratio >= GOAL : undefined,
    rounds: rounds[j],
  };
});
// CPU µs per request of the server process during the same loads: steadier than req/s on a shared machine
const perRequest: Row[] = routes.map((r, j) => ({
  scenario: `${r.scenario}: CPU per request`,
  parley: median(cpu[j]!.map((x) => x.parley)),
  baseline: median(cpu[j]!.map((x) => x.baseline)),
  ratio: median(cpu[j]!.map((x) => x.baseline / x.parley)),
  unit: "µs",
  baselineWhat: "bare Bun.serve, same JSON",
  lowerIsBetter: true,
  rounds: cpu[j],
  notes: "user + system CPU of the server process during the load, per request served; ratio = bare / Parley",
}));
const rows = [...throughput, ...perRequest];
if (errors) rows[0]!.notes = `${errors} non-2xx answers`;
report("http", "HTTP: /health and authenticated GETs (compiled binaries; wrk, 64 connections)", rows);
