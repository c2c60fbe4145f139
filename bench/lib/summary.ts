// bench/results/summary.md: the headline of a run. Regressions against the previous release
// first, then one table with SQLite and PostgreSQL side by side (every row of every bench).
import type { Row } from "./report.ts";

export interface BenchResult {
  bench: string;
  title: string;
  engine?: string;
  at: string;
  cpu?: string;
  cpus?: number;
  loadavg?: { start: number[]; end: number[] };
  binaries?: Record<string, string>;
  rows: Row[];
}

const fmt = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString("en") : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));
const cell = (r: Row | undefined) => (r ? `${fmt(r.parley)} ${r.unit} (${r.ratio.toFixed(2)} of bare)` : "");
const vs = (r: Row | undefined) => (r?.vsPrevious === undefined ? "" : `${r.vsPrevious.toFixed(2)}${r.regression ? " **REGRESSION**" : ""}`);
const goal = (r: Row | undefined) => (r?.met === undefined ? "" : r.met ? "met" : "**not met**");

export function summaryMarkdown(all: Record<string, BenchResult[]>): string {
  const sqlite = all.sqlite ?? [];
  const pg = all.postgres ?? [];
  const out = ["# Benchmark summary", ""];
  const first = [...sqlite, ...pg][0];
  if (first) {
    const of = (k: string) => [...new Set([...sqlite, ...pg].map((b) => b.binaries?.[k]).filter(Boolean))].join(", ");
    out.push(`Machine: ${first.cpus} × ${first.cpu}. Binaries (each bench's file names its own): current ${of("current") || "?"}; previous ${of("previous") || "none"}.`, "");
  }
  const regressions = [...sqlite.map((b) => ["SQLite", b] as const), ...pg.map((b) => ["PostgreSQL", b] as const)].flatMap(([e, b]) =>
    b.rows.filter((r) => r.regression).map((r) => `- **${e}, ${b.bench}: ${r.scenario}**: ${fmt(r.parley)} ${r.unit} against ${fmt(r.previous!)} ${r.unit} for the previous release (current/previous ${r.vsPrevious!.toFixed(3)})`),
  );
  out.push("## Regressions (more than 10 % worse than the previous release)", "", ...(regressions.length ? regressions : ["None."]), "");
  out.push("## Machine's bare figures (measured in this run)", "");
  const bares = new Map<string, string>();
  for (const [e, list] of [["SQLite", sqlite], ["PostgreSQL", pg]] as const) {
    for (const b of list) for (const r of b.rows) if (!bares.has(`${e}|${r.baselineWhat}`)) bares.set(`${e}|${r.baselineWhat}`, `- ${e} run, ${b.bench}: ${r.baselineWhat}: ${fmt(r.baseline)} ${r.unit}`);
  }
  out.push(...bares.values(), "");
  out.push("## SQLite and PostgreSQL side by side", "", "Parley's figure (its ratio to the bare baseline of the same run); current/previous above 1 is better.", "");
  out.push("| bench | scenario | SQLite | SQLite vs previous | SQLite goal | PostgreSQL | PostgreSQL goal |", "|---|---|---|---|---|---|---|");
  const benches = [...new Set([...sqlite, ...pg].map((b) => b.bench))];
  for (const name of benches) {
    const s = sqlite.find((b) => b.bench === name);
    const p = pg.find((b) => b.bench === name);
    const scenarios = [...new Set([...(s?.rows ?? []), ...(p?.rows ?? [])].map((r) => r.scenario))];
    for (const sc of scenarios) {
      const sr = s?.rows.find((r) => r.scenario === sc);
      const pr = p?.rows.find((r) => r.scenario === sc);
      out.push(`| ${name} | ${sc} | ${cell(sr)} | ${vs(sr)} | ${goal(sr)} | ${cell(pr)} | ${goal(pr)} |`);
    }
  }
  out.push("", "Load average (1/5/15 min) at the start and end of each bench:", "");
  for (const [e, list] of [["SQLite", sqlite], ["PostgreSQL", pg]] as const) {
    for (const b of list) out.push(`- ${e}, ${b.bench} (${b.at}): ${b.loadavg?.start.join(" ") ?? "?"} → ${b.loadavg?.end.join(" ") ?? "?"}`);
  }
  return out.join("\n") + "\n";
}
