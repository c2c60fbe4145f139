// `npm run bench`: builds the binaries to compare (the current tree, and the previous release:
// `--against <ref>` / PARLEY_BENCH_AGAINST, default the commit before the asynchronous store;
// both cached by commit under bench/.cache), then runs every bench/*.bench.ts (or those named as
// arguments, e.g. `http send`) one after another, each in its own process, on the engine(s)
// asked for (`--engine sqlite|postgres|both`, default sqlite; PostgreSQL on
// PARLEY_BENCH_DATABASE_URL, or a private server started for the run with .ci/postgres.sh),
// then writes bench/results/<engine>/summary.{md,json} and bench/results/summary.md (engines
// side by side, regressions against the previous release listed first; `--summary-only` writes
// them again from the result files without running anything). Every figure is a
// ratio to a bare baseline measured in the same run and to the previous release; benches never
// assert timings, they report.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { currentBinary, DEFAULT_AGAINST, previousBinary, ROOT } from "./lib/binaries.ts";
import type { Engine } from "./lib/engine.ts";
import { markdown, rerender, RESULTS_DIR, type Row } from "./lib/report.ts";
import { summaryMarkdown, type BenchResult } from "./lib/summary.ts";

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { against: { type: "string" }, engine: { type: "string" }, "summary-only": { type: "boolean" } },
  allowPositionals: true,
});
const against = values.against ?? process.env.PARLEY_BENCH_AGAINST ?? DEFAULT_AGAINST;
const againstGiven = values.against !== undefined || process.env.PARLEY_BENCH_AGAINST !== undefined;
const engineArg = values.engine ?? process.env.PARLEY_BENCH_ENGINE ?? (process.env.PARLEY_BENCH_DATABASE_URL ? "postgres" : "sqlite");
if (!["sqlite", "postgres", "both"].includes(engineArg)) throw new Error(`--engine: sqlite, postgres or both (got ${engineArg})`);
const engines: Engine[] = engineArg === "both" ? ["sqlite", "postgres"] : [engineArg as Engine];

if (values["summary-only"]) {
  // no bench runs: every result file's previous-release columns derived again, then the summaries
  for (const engine of ["sqlite", "postgres"] as Engine[]) {
    const dir = join(RESULTS_DIR, engine);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".json") && f !== "summary.json")) rerender(join(dir, f));
    writeEngineSummary(engine);
  }
  writeCombinedSummary();
  process.exit(0);
}
const current = currentBinary();
const previous = previousBinary(against);
/**
 * Run only when named: measurements that print their figures rather than report ratios (the
 * dashboard needs a headless Chromium; campaigns, segments and /metrics' timing cost compare
 * with their own bare baselines only, on SQLite)
 */
const ON_REQUEST = new Set(["dashboard", "campaigns", "segments", "metrics"]);
/** seeded with SQLite-only SQL (cpu: the request path in process, on SQLite): skipped on PostgreSQL */
const SQLITE_ONLY = new Set(["backlog", "campaigns", "segments", "cpu"]);
const files = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => (positionals.length ? positionals.includes(f.replace(".bench.ts", "")) : !ON_REQUEST.has(f.replace(".bench.ts", ""))))
  .sort();

let pgDir: string | undefined;
let pgUrl = process.env.PARLEY_BENCH_DATABASE_URL;
if (engines.includes("postgres") && !pgUrl) {
  pgDir = mkdtempSync(join(tmpdir(), "parley-bench-pg-"));
  const port = String(56_000 + Math.floor(Math.random() * 4000));
  const r = Bun.spawnSync(["bash", join(ROOT, ".ci", "postgres.sh"), "start", pgDir, port], { stdout: "pipe", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error("could not start a private PostgreSQL (.ci/postgres.sh)");
  pgUrl = r.stdout.toString().trim().split("\n").pop()!;
  console.log(`private PostgreSQL for the run: ${pgUrl}`);
}

try {
  for (const engine of engines) {
    // the default previous release predates PostgreSQL: on that engine the servers compare with
    // bare only, unless `--against` names a ref that runs on it (a before/after of one change)
    const bins = engine === "postgres" && !againstGiven ? { current } : { current, previous };
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      PARLEY_BENCH_ENGINE: engine,
      PARLEY_BENCH_BINS: JSON.stringify(bins),
      ...(engine === "postgres" ? { PARLEY_BENCH_DATABASE_URL: pgUrl! } : {}),
    };
    for (const f of files) {
      if (engine === "postgres" && SQLITE_ONLY.has(f.replace(".bench.ts", ""))) continue;
      console.log(`\n# ${f} [${engine}] (load average ${loadavg().map((x) => x.toFixed(2)).join(" ")})`);
      const p = Bun.spawn([process.execPath, join(import.meta.dir, f)], { stdout: "inherit", stderr: "inherit", env });
      if ((await p.exited) !== 0) {
        console.error(`${f} [${engine}] failed`);
        process.exitCode = 1;
      }
    }
    writeEngineSummary(engine);
  }
} finally {
  if (pgDir) Bun.spawnSync(["bash", join(ROOT, ".ci", "postgres.sh"), "stop", pgDir], { stdout: "inherit", stderr: "inherit" });
}

writeCombinedSummary();

function writeCombinedSummary(): void {
  const all: Record<string, BenchResult[]> = {};
  for (const engine of ["sqlite", "postgres"] as Engine[]) {
    const file = join(RESULTS_DIR, engine, "summary.json");
    if (existsSync(file)) all[engine] = JSON.parse(readFileSync(file, "utf8")) as BenchResult[];
  }
  writeFileSync(join(RESULTS_DIR, "summary.md"), summaryMarkdown(all));
  console.log(`\nwrote ${join(RESULTS_DIR, "summary.md")}`);
}

function writeEngineSummary(engine: Engine): void {
  const dir = join(RESULTS_DIR, engine);
  mkdirSync(dir, { recursive: true });
  const results: BenchResult[] = [];
  for (const f of readdirSync(import.meta.dir).filter((f) => f.endsWith(".bench.ts")).sort()) {
    const file = join(dir, f.replace(".bench.ts", ".json"));
    if (existsSync(file)) results.push(JSON.parse(readFileSync(file, "utf8")) as BenchResult);
  }
  writeFileSync(join(dir, "summary.json"), JSON.stringify(results, null, 2) + "\n");
  const md = [`# Benchmark summary [${engine}]`, "", "Ratios: Parley / bare baseline (for times and memory: bare / Parley); current/previous turned so that above 1 is better.", ""];
  for (const b of results) md.push(`## ${b.title}`, "", `${b.at}; load average at start ${b.loadavg?.start.join(" ")}, at end ${b.loadavg?.end.join(" ")}`, "", markdown(b.rows as Row[]));
  writeFileSync(join(dir, "summary.md"), md.join("\n"));
}
