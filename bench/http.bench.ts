// Requests per second through the whole app (GET /health; authenticated GETs: JWT
// /api/auth/profile, API key /api/external/sessions) against a bare Bun.serve answering JSON.
// Parley and the bare server are child processes; wrk is the load generator; rounds are
// interleaved (bare, then each Parley route) so machine noise hits both alike.
import { median, report, type Row } from "./lib/report.ts";
import { maxLoad, startChild } from "./lib/proc.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

const bare = await startChild<{ port: number }>("serve-bare.ts", ["json"]);
const parley = await startChild<{ port: number; token: string; apiKey: string }>("serve-parley.ts", ["{}"]);
const P = `http://127.0.0.1:${parley.info.port}`;
const routes: { scenario: string; url: string; headers: Record<string, string>; goal?: string }[] = [
  { scenario: "GET /health", url: `${P}/health`, headers: {} },
  { scenario: "GET /api/auth/profile (JWT)", url: `${P}/api/auth/profile`, headers: { authorization: `Bearer ${parley.info.token}` }, goal: "≥ 0.5" },
  { scenario: "GET /api/external/sessions (API key)", url: `${P}/api/external/sessions`, headers: { "x-api-key": parley.info.apiKey }, goal: "≥ 0.5" },
];
// warm-up (JIT, statement caches)
await maxLoad(`http://127.0.0.1:${bare.info.port}/`, { seconds: 1 });
for (const r of routes) await maxLoad(r.url, { seconds: 1, headers: r.headers });

const rounds = routes.map(() => [] as { parley: number; baseline: number }[]);
let errors = 0;
for (let i = 0; i < ROUNDS; i++) {
  for (let j = 0; j < routes.length; j++) {
    const b = await maxLoad(`http://127.0.0.1:${bare.info.port}/`, { seconds: SECONDS });
    const p = await maxLoad(routes[j]!.url, { seconds: SECONDS, headers: routes[j]!.headers });
    errors += p.non2xx;
    rounds[j]!.push({ parley: p.rps, baseline: b.rps });
  }
}
await parley.stop();
await bare.stop();

const rows: Row[] = routes.map((r, j) => {
  const ratio = median(rounds[j]!.map((x) => x.parley / x.baseline));
  return {
    scenario: r.scenario,
    parley: median(rounds[j]!.map((x) => x.parley)),
    baseline: median(rounds[j]!.map((x) => x.baseline)),
    ratio,
    unit: "req/s",
    baselineWhat: "bare Bun.serve, same JSON",
    goal: r.goal,
    met: r.goal ? ratio >= 0.5 : undefined,
    rounds: rounds[j],
  };
});
if (errors) rows[0]!.notes = `${errors} non-2xx answers`;
report("http", "HTTP: /health and authenticated GETs (wrk, 64 connections, from source)", rows);
