// `npm run bench`: runs every bench/*.bench.ts (or those named as arguments, e.g. `http send`)
// one after another, each in its own process, then writes bench/results/summary.{md,json}
// from the results each wrote. Every number is a ratio to a bare baseline measured in the same
// run; benchmarks never assert timings, they report.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { markdown, RESULTS_DIR, type Row } from "./lib/report.ts";

const only = process.argv.slice(2);
const files = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => !only.length || only.includes(f.replace(".bench.ts", "")))
  .sort();
for (const f of files) {
  console.log(`\n# ${f}`);
  const p = Bun.spawn([process.execPath, join(import.meta.dir, f)], { stdout: "inherit", stderr: "inherit" });
  if ((await p.exited) !== 0) process.exitCode = 1;
}

const all: { bench: string; title: string; at: string; rows: Row[] }[] = [];
for (const f of readdirSync(import.meta.dir).filter((f) => f.endsWith(".bench.ts")).sort()) {
  const file = join(RESULTS_DIR, f.replace(".bench.ts", ".json"));
  if (existsSync(file)) all.push(JSON.parse(readFileSync(file, "utf8")));
}
writeFileSync(join(RESULTS_DIR, "summary.json"), JSON.stringify(all, null, 2) + "\n");
const md = ["# Benchmark summary", "", "Each bench's own file has its rounds; ratios are Parley / bare baseline (for times and memory: bare / Parley).", ""];
for (const b of all) md.push(`## ${b.title}`, "", `${b.at}`, "", markdown(b.rows));
writeFileSync(join(RESULTS_DIR, "summary.md"), md.join("\n"));
console.log(`\nwrote ${join(RESULTS_DIR, "summary.md")}`);
