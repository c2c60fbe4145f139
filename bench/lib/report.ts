// Writes a benchmark's results to bench/results/<name>.json and .md (and prints them).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { benchEngine } from "./engine.ts";

export interface Row {
  /** what is measured */
  scenario: string;
  parley: number;
  baseline: number;
  /** parley / baseline, or baseline / parley where smaller is better (latency, start time, RSS) */
  ratio: number;
  unit: string;
  /** what the bare baseline is */
  baselineWhat: string;
  /** the issue's goal, in words */
  goal?: string;
  met?: boolean;
  /** every round's numbers, for the honest spread (previous: the previous release's binary, same round) */
  rounds?: { parley: number; baseline: number; previous?: number }[];
  /** the previous release's figure (median of rounds), measured interleaved with this one */
  previous?: number;
  /** current / previous, turned so that above 1 is better (for times and memory: previous / current) */
  vsPrevious?: number;
  /** more than 10 % worse than the previous release */
  regression?: boolean;
  /** the spread of rounds is then baseline / parley, like the ratio (latency, time, memory) */
  lowerIsBetter?: boolean;
  notes?: string;
}

export const RESULTS_DIR = join(import.meta.dir, "..", "results");

const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));

/**
 * Fills a row's previous-release columns from its rounds: the previous figure (median), the
 * median of the rounds' current/previous ratios (turned so that above 1 is better), and the
 * regression flag: more than 10 % worse (throughput below 0.9×, time or memory above 1.1×) by
 * the median of the rounds' ratios and by the ratio of the medians alike.
 */
export function withPrevious(row: Row): Row {
  const rs = (row.rounds ?? []).filter((r) => r.previous !== undefined && Number.isFinite(r.previous));
  if (!rs.length) return row;
  const previous = median(rs.map((r) => r.previous!));
  const vsPrevious = median(rs.map((r) => (row.lowerIsBetter ? r.previous! / r.parley : r.parley / r.previous!)));
  // the medians' own ratio must agree: with wide rounds the two can fall either side of the line
  const current = median(rs.map((r) => r.parley));
  const ofMedians = row.lowerIsBetter ? previous / current : current / previous;
  const worse = (x: number) => (row.lowerIsBetter ? 1 / x > 1.1 : x < 0.9);
  const regression = worse(vsPrevious) && worse(ofMedians);
  return { ...row, previous, vsPrevious, regression };
}

/** Markdown table of rows. */
export function markdown(rows: Row[]): string {
  const lines = [
    "| scenario | Parley | bare baseline | Parley/bare | previous release | current/previous | regression | goal | met |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const spread = r.rounds && r.rounds.length > 1 ? ` (rounds: ${r.rounds.map((x) => fmt(r.lowerIsBetter ? x.baseline / x.parley : x.parley / x.baseline)).join(", ")})` : "";
    const prevSpread = r.rounds && r.rounds.some((x) => x.previous !== undefined) ? ` (rounds: ${r.rounds.map((x) => (x.previous === undefined ? "-" : fmt(r.lowerIsBetter ? x.previous / x.parley : x.parley / x.previous))).join(", ")})` : "";
    const prev = r.previous === undefined ? "n/a" : `${fmt(r.previous)} ${r.unit}`;
    const vs = r.vsPrevious === undefined ? "n/a" : `${r.vsPrevious.toFixed(3)}${prevSpread}`;
    lines.push(
      `| ${r.scenario} | ${fmt(r.parley)} ${r.unit} | ${fmt(r.baseline)} ${r.unit} (${r.baselineWhat}) | ${r.ratio.toFixed(3)}${spread} | ${prev} | ${vs} | ${r.regression ? "**REGRESSION**" : r.regression === false ? "no" : ""} | ${r.goal ?? ""} | ${r.met === undefined ? "" : r.met ? "yes" : "no"} |`,
    );
  }
  const notes = rows.filter((r) => r.notes).map((r) => `- ${r.scenario}: ${r.notes}`);
  return lines.join("\n") + (notes.length ? "\n\n" + notes.join("\n") : "") + "\n";
}

/** Writes and prints one bench's rows. */
export function report(name: string, title: string, rows: Row[]): void {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  rows = rows.map(withPrevious);
  const engine = benchEngine();
  const load = { start: START_LOAD, end: loadavg().map((x) => Number(x.toFixed(2))) };
  const versions = process.env.PARLEY_BENCH_BINS ? (JSON.parse(process.env.PARLEY_BENCH_BINS) as Record<string, { version: string }>) : {};
  const against = Object.fromEntries(Object.entries(versions).map(([k, v]) => [k, v.version]));
  const meta = { bench: name, title, engine, at: new Date().toISOString(), bun: Bun.version, cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: load, binaries: against };
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({ ...meta, rows }, null, 2) + "\n");
  const binaries = Object.entries(against).map(([k, v]) => `${k} ${v}`).join(", ");
  const md = `## ${title} [${engine}]\n\n${meta.at}, Bun ${meta.bun}, ${meta.cpus} CPUs (${meta.cpu}); load average (1/5/15 min) at start ${load.start.join(" ")}, at end ${load.end.join(" ")}${binaries ? `; binaries: ${binaries}` : ""}\n\n${markdown(rows)}`;
  writeFileSync(join(dir, `${name}.md`), md);
  console.log(md);
}

/** Rewrites a bench's .md and .json from its .json (the previous-release columns derived again). */
export function rerender(file: string): void {
  const r = JSON.parse(readFileSync(file, "utf8")) as { title: string; engine: string; at: string; bun: string; cpus: number; cpu: string; loadavg: { start: number[]; end: number[] }; binaries: Record<string, string>; rows: Row[] };
  r.rows = r.rows.map((row) => withPrevious({ ...row, previous: undefined, vsPrevious: undefined, regression: undefined }));
  writeFileSync(file, JSON.stringify(r, null, 2) + "\n");
  const binaries = Object.entries(r.binaries ?? {}).map(([k, v]) => `${k} ${v}`).join(", ");
  const md = `## ${r.title} [${r.engine}]\n\n${r.at}, Bun ${r.bun}, ${r.cpus} CPUs (${r.cpu}); load average (1/5/15 min) at start ${r.loadavg.start.join(" ")}, at end ${r.loadavg.end.join(" ")}${binaries ? `; binaries: ${binaries}` : ""}\n\n${markdown(r.rows)}`;
  writeFileSync(file.replace(/\.json$/, ".md"), md);
}

const START_LOAD = loadavg().map((x) => Number(x.toFixed(2)));

/** bench/results/<engine>/ */
export const resultsDir = (engine = benchEngine()) => process.env.PARLEY_BENCH_RESULTS_DIR ?? join(RESULTS_DIR, engine);

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The percentile p (0-100) of samples. */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}
