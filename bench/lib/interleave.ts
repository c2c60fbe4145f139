// The in-process benches (queue drain, fan-out, webhook deliveries, ...) drive the library code
// from inside their own process, so a binary cannot stand in for them. They compare with the
// previous release by running the previous release's own copy of the same bench file, from its
// source tree kept beside its binary (bench/.cache/<commit>/tree, see binaries.ts), with the
// same Bun: one round of the current file, then one round of the previous one, and so on
// (each round a process of its own, `BENCH_ROUNDS=1`), so machine noise hits both alike. Rows
// are matched by scenario (else by position); each round keeps the current file's bare
// baseline, and the previous release's figure of the same round.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, report, type Row } from "./report.ts";
import { targets } from "./targets.ts";

const CHILD = "PARLEY_BENCH_ROUND_CHILD";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** True in the per-round child: the bench file then runs one round and reports it. */
export const isRoundChild = () => process.env[CHILD] === "1";

interface Result {
  title: string;
  rows: Row[];
}

function runOnce(tree: string, name: string, resultsDir: string): Result {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), BENCH_ROUNDS: "1", [CHILD]: "1", PARLEY_BENCH_RESULTS_DIR: resultsDir };
  const r = Bun.spawnSync([process.execPath, join(tree, "bench", `${name}.bench.ts`)], { cwd: tree, env, stdout: "pipe", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error(`${tree}: bench ${name} failed (${r.exitCode})`);
  // the default previous release ignores the results dir and writes bench/results/<name>.json in its own tree
  const file = join(resultsDir, `${name}.json`);
  return JSON.parse(readFileSync(existsSync(file) ? file : join(tree, "bench", "results", `${name}.json`), "utf8")) as Result;
}

/** Runs `name` round by round, current and previous interleaved, and reports the merged rows. */
export function interleave(name: string): void {
  const bins = targets();
  const dir = mkdtempSync(join(tmpdir(), "parley-round-"));
  const previousDir = mkdtempSync(join(tmpdir(), "parley-round-previous-"));
  // on PostgreSQL a previous tree is given only when `--against` names one that runs there (run.ts)
  const previousTree = bins.previous?.tree;
  const cur: Result[] = [];
  const prev: Result[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    cur.push(runOnce(join(import.meta.dir, "..", ".."), name, dir));
    if (previousTree) prev.push(runOnce(previousTree, name, previousDir));
  }
  const rows = cur[0]!.rows.map((first, j) => {
    const each = cur.map((c) => c.rows[j]!);
    const pre = prev.map((p) => p.rows.find((r) => r.scenario === first.scenario) ?? p.rows[j]);
    const rounds = each.map((r, i) => ({ parley: r.parley, baseline: r.baseline, previous: pre[i]?.parley }));
    const mets = each.map((r) => r.met).filter((m) => m !== undefined);
    const row: Row = {
      ...first,
      parley: median(each.map((r) => r.parley)),
      baseline: median(each.map((r) => r.baseline)),
      ratio: median(each.map((r) => r.ratio)),
      rounds,
      met: mets.length ? mets.filter(Boolean).length * 2 > mets.length : undefined,
    };
    return row;
  });
  const note = previousTree ? "" : " (no previous release on this engine)";
  report(name, cur[0]!.title + note, rows);
}
