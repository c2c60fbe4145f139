// Writes a benchmark's results to bench/results/<name>.json and .md (and prints them).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";

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
  /** the goal, in words */
  goal?: string;
  met?: boolean;
  /** every round's numbers, for the honest spread */
  rounds?: { parley: number; baseline: number }[];
  /** the spread of rounds is then baseline / parley, like the ratio (latency, time, memory) */
  lowerIsBetter?: boolean;
  notes?: string;
}

export const RESULTS_DIR = join(import.meta.dir, "..", "results");

const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));

/** Markdown table of rows. */
export function markdown(rows: Row[]): string {
  const lines = ["| scenario | Parley | bare baseline | ratio | goal | met |", "|---|---|---|---|---|---|"];
  for (const r of rows) {
    const spread = r.rounds && r.rounds.length > 1 ? ` (rounds: ${r.rounds.map((x) => fmt(r.lowerIsBetter ? x.baseline / x.parley : x.parley / x.baseline)).join(", ")})` : "";
    lines.push(
      `| ${r.scenario} | ${fmt(r.parley)} ${r.unit} | ${fmt(r.baseline)} ${r.unit} (${r.baselineWhat}) | ${r.ratio.toFixed(3)}${spread} | ${r.goal ?? ""} | ${r.met === undefined ? "" : r.met ? "yes" : "no"} |`,
    );
  }
  const notes = rows.filter((r) => r.notes).map((r) => `- ${r.scenario}: ${r.notes}`);
  return lines.join("\n") + (notes.length ? "\n\n" + notes.join("\n") : "") + "\n";
}

/** Writes and prints one bench's rows. */
export function report(name: string, title: string, rows: Row[]): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const meta = { bench: name, title, at: new Date().toISOString(), bun: Bun.version, cpus: cpus().length, cpu: cpus()[0]?.model };
  writeFileSync(join(RESULTS_DIR, `${name}.json`), JSON.stringify({ ...meta, rows }, null, 2) + "\n");
  const md = `## ${title}\n\n${meta.at}, Bun ${meta.bun}, ${meta.cpus} CPUs (${meta.cpu})\n\n${markdown(rows)}`;
  writeFileSync(join(RESULTS_DIR, `${name}.md`), md);
  console.log(md);
}

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
