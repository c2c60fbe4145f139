// Cold start and idle memory of the compiled binary (built with the flags of `npm run build`):
// time from spawn to the first 200 of /health (`parley serve --network sim` on a data dir that
// was migrated once before), and resident memory after a second of idle, against a compiled
// bare Bun.serve hello measured in the same run, interleaved.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { median, report } from "./lib/report.ts";
import { benchDir } from "./lib/tmp.ts";

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 7);
const root = join(import.meta.dir, "..");
const dir = benchDir("parley-start-");
const parleyBin = join(dir, "parley");
const helloBin = join(dir, "hello");
// the flags of `npm run build`, so the bench measures the binary that ships
const buildScript = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
const flags = buildScript.split(/\s+/).filter((f) => f.startsWith("--") && f !== "--outfile");
// the bytecode order profile (`--bytecode-order`) is Parley's: the hello has none of its functions
const helloFlags = flags.filter((f) => !f.startsWith("--bytecode-order"));
for (const [src, out, f] of [[join(root, "src/main.ts"), parleyBin, flags], [join(import.meta.dir, "lib/hello.ts"), helloBin, helloFlags]] as const) {
  const b = Bun.spawnSync([process.execPath, "build", ...f, src, "--outfile", out], { cwd: root, stdout: "ignore", stderr: "inherit" });
  if (b.exitCode !== 0) throw new Error(`build of ${src} failed`);
}
const dataDir = join(dir, "data");
let port = 20_000 + Math.floor(Math.random() * 20_000);

function rssMiB(pid: number): number {
  const kb = Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1]);
  return kb / 1024;
}

async function start(cmd: string[], url: string): Promise<{ ms: number; rss: number }> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore", env: { ...process.env, PARLEY_LOG_LEVEL: "error" } });
  let ms = NaN;
  for (let i = 0; i < 20_000; i++) {
    try {
      if ((await fetch(url)).status === 200) {
        ms = performance.now() - t0;
        break;
      }
    } catch {
      // not listening yet
    }
    await Bun.sleep(1);
  }
  await Bun.sleep(1000);
  const rss = rssMiB(p.pid);
  p.kill("SIGTERM");
  await p.exited;
  return { ms, rss };
}

const parley = () => {
  const p = ++port;
  return start([parleyBin, "serve", "--network", "sim", "--port", String(p), "--data-dir", dataDir], `http://127.0.0.1:${p}/health`);
};
const hello = () => {
  const p = ++port;
  return start([helloBin, String(p)], `http://127.0.0.1:${p}/health`);
};
await parley(); // migrates the data dir once
await hello();
const rounds: { parley: { ms: number; rss: number }; hello: { ms: number; rss: number } }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ hello: await hello(), parley: await parley() });
const ms = median(rounds.map((r) => r.parley.ms));
const rss = median(rounds.map((r) => r.parley.rss));
report("start", "Cold start and idle RSS of the compiled binary (`parley serve --network sim`)", [
  {
    scenario: "cold start: spawn to first /health 200",
    parley: ms,
    baseline: median(rounds.map((r) => r.hello.ms)),
    ratio: median(rounds.map((r) => r.hello.ms / r.parley.ms)),
    unit: "ms",
    baselineWhat: "compiled bare Bun.serve hello",
    goal: "< 60 ms",
    met: ms < 60,
    rounds: rounds.map((r) => ({ parley: r.parley.ms, baseline: r.hello.ms })),
    lowerIsBetter: true,
    notes: "ratio = bare / Parley (smaller is better)",
  },
  {
    scenario: "idle RSS, 1 s after /health",
    parley: rss,
    baseline: median(rounds.map((r) => r.hello.rss)),
    ratio: median(rounds.map((r) => r.hello.rss / r.parley.rss)),
    unit: "MiB",
    baselineWhat: "compiled bare Bun.serve hello",
    goal: "< 50 MB (47.7 MiB)",
    rounds: rounds.map((r) => ({ parley: r.parley.rss, baseline: r.hello.rss })),
    lowerIsBetter: true,
    met: rss * 1.048576 < 50,
    notes: "ratio = bare / Parley",
  },
]);
