// CPU per request of the hot GETs in process (app.handle, no sockets; bench/lib/cpu-get.ts):
// the current tree's and the previous release's own copy of cpu-get.ts, round by round, against
// a bare handler doing the same Request -> JSON Response -> text in this process. CPU time per
// request moves far less with the machine's other load than requests per second do, so this is
// the steadiest comparison of the request path with the previous release.
import { join } from "node:path";
import { benchEngine } from "./lib/engine.ts";
import { median, report, type Row } from "./lib/report.ts";
import { targets } from "./lib/targets.ts";

const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5));
const N = Number(process.env.BENCH_CPU_REQUESTS ?? 100_000);
const bins = targets();
const previousTree = bins.previous && benchEngine() === "sqlite" ? bins.previous.tree : undefined;
const root = join(import.meta.dir, "..");
const CASES = ["health", "jwt profile", "apikey sessions"] as const;

function cpuGet(tree: string): Record<string, number> {
  const r = Bun.spawnSync([process.execPath, join(tree, "bench", "lib", "cpu-get.ts"), String(N)], { cwd: tree, stdout: "pipe", stderr: "inherit", env: process.env });
  if (r.exitCode !== 0) throw new Error(`${tree}: cpu-get failed`);
  const out: Record<string, number> = {};
  for (const m of r.stdout.toString().matchAll(/^(.+): ([\d.]+) us\/request$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

async function bare(): Promise<number> {
  const handle = (req: Request) => Response.json({ success: true, data: { path: new URL(req.url).pathname } });
  for (let i = 0; i < 20_000; i++) await handle(new Request("http://127.0.0.1/health")).text();
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await handle(new Request("http://127.0.0.1/health")).text();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / N;
}

const rounds: { bare: number; current: Record<string, number>; previous?: Record<string, number> }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ bare: await bare(), current: cpuGet(root), previous: previousTree ? cpuGet(previousTree) : undefined });

const rows: Row[] = CASES.map((c) => {
  const rs = rounds.map((r) => ({ parley: r.current[c]!, baseline: r.bare, previous: r.previous?.[c] }));
  return {
    scenario: `${c}: CPU per request (in process, app.handle)`,
    parley: median(rs.map((r) => r.parley)),
    baseline: median(rs.map((r) => r.baseline)),
    ratio: median(rs.map((r) => r.baseline / r.parley)),
    unit: "µs",
    baselineWhat: "bare handler: Request -> Response.json -> text, in process",
    lowerIsBetter: true,
    rounds: rs,
    notes: "ratio = bare / Parley",
  };
});
report("cpu", `CPU per request of the hot GETs, in process (${N.toLocaleString("en")} requests a round; the releases' own bench/lib/cpu-get.ts)`, rows);
