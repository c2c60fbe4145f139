// `npm run bench`: runs every bench/*.bench.ts and prints ratios against a bare baseline
// measured in the same run. Benchmarks never assert timings; they report.
import { readdirSync } from "node:fs";
import { join } from "node:path";

const files = readdirSync(import.meta.dir).filter((f) => f.endsWith(".bench.ts")).sort();
for (const f of files) {
  console.log(`\n## ${f}`);
  const p = Bun.spawn([process.execPath, join(import.meta.dir, f)], { stdout: "inherit", stderr: "inherit" });
  if ((await p.exited) !== 0) process.exitCode = 1;
}
