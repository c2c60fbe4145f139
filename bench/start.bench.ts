// Cold start and idle memory of the compiled binary (`npm run build`, and the previous
// release's): time from spawn to the first 200 of /health (`parley serve --network sim` on a
// data dir, or a PostgreSQL database, that was migrated once before), and resident memory after
// a second of idle, against a compiled bare Bun.serve hello (built with the same flags) measured
// in the same run, interleaved. Then once: resident memory of the current binary and the hello
// after the same full load of GETs and 45 s of idle (a server that has worked, gone quiet).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freshCopy } from "./lib/binaries.ts";
import { engineDatabase } from "./lib/engine.ts";
import { maxLoad } from "./lib/proc.ts";
import { targets } from "./lib/targets.ts";
import { median, report } from "./lib/report.ts";
import { benchDir } from "./lib/tmp.ts";

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 7);
const root = join(import.meta.dir, "..");
const dir = benchDir("parley-start-");
const bins = targets();
// each binary measured from a copy written in this run, as the hello is built in it (see freshCopy)
const parleyBin = freshCopy(bins.current.path, dir, "current");
const previousBin = bins.previous ? freshCopy(bins.previous.path, dir, "previous") : undefined;
const helloBin = join(dir, "hello");
// the flags of `npm run build`, so the bench measures the binary that ships
const buildScript = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
const flags = buildScript.split(/\s+/).filter((f) => f.startsWith("--") && f !== "--outfile");
// the bytecode order profile (`--bytecode-order`) is Parley's: the hello has none of its functions
const helloFlags = flags.filter((f) => !f.startsWith("--bytecode-order"));
for (const [src, out, f] of [[join(import.meta.dir, "lib/hello.ts"), helloBin, helloFlags]] as const) {
  const b = Bun.spawnSync([process.execPath, "build", ...f, src, "--outfile", out], { cwd: root, stdout: "ignore", stderr: "inherit" });
  if (b.exitCode !== 0) throw new Error(`build of ${src} failed`);
}
const dataDir = join(dir, "data");
const previousDataDir = join(dir, "data-previous");
const databaseUrl = await engineDatabase();
const previousDatabaseUrl = bins.previous ? await engineDatabase() : undefined;
const dbEnv = (url: string | undefined): Record<string, string> => (url ? { PARLEY_DATABASE_URL: url } : {});
// below the kernel's ephemeral range (32768-60999 on the bench machine): a port there can be taken
// by any outgoing connection meanwhile, and the server then exits with its port in use
let port = 20_000 + Math.floor(Math.random() * 10_000);

function rssMiB(pid: number): number {
  const kb = Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1]);
  return kb / 1024;
}

/** Spawns a server and waits for its first 200; returns the process and the time it took. */
async function spawnServer(cmd: string[], url: string, env: Record<string, string> = {}): Promise<{ p: Bun.Subprocess; ms: number }> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore", env: { ...process.env, PARLEY_LOG_LEVEL: "error", ...env } });
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
  return { p, ms };
}

async function start(cmd: string[], url: string, env: Record<string, string> = {}): Promise<{ ms: number; rss: number }> {
  const { p, ms } = await spawnServer(cmd, url, env);
  await Bun.sleep(1000);
  const rss = rssMiB(p.pid);
  p.kill("SIGTERM");
  await p.exited;
  return { ms, rss };
}

const parleyCmd = (p: number, bin = parleyBin, dir = dataDir) => [bin, "serve", "--network", "sim", "--port", String(p), "--data-dir", dir];
const helloCmd = (p: number) => [helloBin, String(p)];
const parley = () => {
  const p = ++port;
  return start(parleyCmd(p), `http://127.0.0.1:${p}/health`, dbEnv(databaseUrl));
};
const previous = () => {
  const p = ++port;
  return start(parleyCmd(p, previousBin!, previousDataDir), `http://127.0.0.1:${p}/health`, dbEnv(previousDatabaseUrl));
};
const hello = () => {
  const p = ++port;
  return start(helloCmd(p), `http://127.0.0.1:${p}/health`);
};

const LOAD_SECONDS = 3;
const IDLE_AFTER_LOAD_MS = 45_000;
/** A workspace and an API key in the (migrated) data dir, made with the binary's operator commands. */
function apiKey(): string {
  const cli = (args: string[], stdin?: string) => {
    const r = Bun.spawnSync([parleyBin, ...args, "--data-dir", dataDir], { env: { ...process.env, ...dbEnv(databaseUrl) }, stdin: stdin ? Buffer.from(stdin) : "ignore", stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`parley ${args[0]} ${args[1]}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  };
  cli(["workspaces", "create", "--name", "Bench", "--owner-email", "bench@example.com", "--owner-name", "Bench", "--owner-mobile", "+919800000001", "--password-stdin"], "Bench-password-1\n");
  return cli(["keys", "create", "--workspace", "Bench", "--name", "bench"]).split("\n")[0]!.trim();
}

/**
 * Both servers at once: each under full load (wrk, 64 connections) for LOAD_SECONDS on /health
 * and LOAD_SECONDS on GET /api/external/sessions with an API key (the hello answers any path;
 * Parley's daily quota of the trial answers 429 once spent, through the same guard), one after
 * the other; then both idle IDLE_AFTER_LOAD_MS; then their resident sizes.
 */
async function afterLoad(): Promise<{ parley: number; hello: number }> {
  const key = apiKey();
  const pp = ++port;
  const hp = ++port;
  const servers = [
    await spawnServer([...parleyCmd(pp), "--rate-limit-per-minute", "1000000"], `http://127.0.0.1:${pp}/health`, dbEnv(databaseUrl)),
    await spawnServer(helloCmd(hp), `http://127.0.0.1:${hp}/health`),
  ];
  for (const base of [`http://127.0.0.1:${pp}`, `http://127.0.0.1:${hp}`]) {
    await maxLoad(`${base}/health`, { seconds: LOAD_SECONDS });
    await maxLoad(`${base}/api/external/sessions`, { seconds: LOAD_SECONDS, headers: { "x-api-key": key } });
  }
  await Bun.sleep(IDLE_AFTER_LOAD_MS);
  const [parleyRss, helloRss] = servers.map((s) => rssMiB(s.p.pid)) as [number, number];
  for (const s of servers) {
    s.p.kill("SIGTERM");
    await s.p.exited;
  }
  return { parley: parleyRss, hello: helloRss };
}
await parley(); // migrates the data dir once
if (bins.previous) await previous();
await hello();
type Start = { ms: number; rss: number };
const rounds: { parley: Start; hello: Start; previous?: Start }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ hello: await hello(), parley: await parley(), previous: bins.previous ? await previous() : undefined });
/** Spawn to exit of an operator command that does not load the server. */
function cliMs(args: string[]): number {
  const t0 = performance.now();
  // on PostgreSQL the list reads the run's database, as the server does
  const r = Bun.spawnSync([parleyBin, ...args], { stdout: "ignore", stderr: "pipe", env: { ...process.env, ...dbEnv(databaseUrl) } });
  if (r.exitCode !== 0) throw new Error(`parley ${args.join(" ")}: ${r.stderr.toString()}`);
  return performance.now() - t0;
}
// the data dir has a workspace (made by afterLoad's apiKey too, so only when missing)
const cliRounds: { version: number; list: number; hello: number }[] = [];
for (let i = 0; i < ROUNDS; i++) {
  cliRounds.push({ hello: (await hello()).ms, version: cliMs(["--version"]), list: cliMs(["workspaces", "list", "--data-dir", dataDir]) });
}
const loaded = await afterLoad();
const ms = median(rounds.map((r) => r.parley.ms));
const rss = median(rounds.map((r) => r.parley.rss));
report("start", "Cold start and idle RSS of the compiled binaries (`parley serve --network sim`)", [
  {
    scenario: "cold start: spawn to first /health 200",
    parley: ms,
    baseline: median(rounds.map((r) => r.hello.ms)),
    ratio: median(rounds.map((r) => r.hello.ms / r.parley.ms)),
    unit: "ms",
    baselineWhat: "compiled bare Bun.serve hello",
    goal: "bare/Parley ≥ 0.2 (within 5× the compiled bare hello)",
    met: median(rounds.map((r) => r.hello.ms / r.parley.ms)) >= 0.2,
    rounds: rounds.map((r) => ({ parley: r.parley.ms, baseline: r.hello.ms, previous: r.previous?.ms })),
    lowerIsBetter: true,
    notes: "ratio = bare / Parley (smaller is better)",
  },
  ...(["version", "list"] as const).map((k) => {
    const ms = median(cliRounds.map((r) => r[k]));
    const base = median(cliRounds.map((r) => r.hello));
    return {
      scenario: k === "version" ? "`parley --version`: spawn to exit" : "`parley workspaces list` (set-up data dir): spawn to exit",
      parley: ms,
      baseline: base,
      ratio: median(cliRounds.map((r) => r.hello / r[k])),
      unit: "ms",
      baselineWhat: "compiled bare Bun.serve hello, spawn to first 200",
      goal: "within 3x of the hello",
      met: ms <= 3 * base,
      rounds: cliRounds.map((r) => ({ parley: r[k], baseline: r.hello })),
      lowerIsBetter: true,
      notes: "ratio = bare / Parley (smaller is better); the command loads its own module only, not the server",
    };
  }),
  {
    scenario: "idle RSS, 1 s after /health",
    parley: rss,
    baseline: median(rounds.map((r) => r.hello.rss)),
    ratio: median(rounds.map((r) => r.hello.rss / r.parley.rss)),
    unit: "MiB",
    baselineWhat: "compiled bare Bun.serve hello",
    goal: `bare/Parley ≥ 0.604 (< 50 MB = 47.7 MiB beside a 28.8 MiB hello on the reference machine); absolute: ${rss * 1.048576 < 50 ? "met" : "not met"}`,
    rounds: rounds.map((r) => ({ parley: r.parley.rss, baseline: r.hello.rss, previous: r.previous?.rss })),
    lowerIsBetter: true,
    met: median(rounds.map((r) => r.hello.rss / r.parley.rss)) >= 0.604,
    notes: "ratio = bare / Parley",
  },
  {
    scenario: `idle RSS after load: ${2 * LOAD_SECONDS} s of GETs at full load, then ${IDLE_AFTER_LOAD_MS / 1000} s idle`,
    parley: loaded.parley,
    baseline: loaded.hello,
    ratio: loaded.hello / loaded.parley,
    unit: "MiB",
    baselineWhat: "compiled bare Bun.serve hello, the same load",
    lowerIsBetter: true,
    notes: "one round; ratio = bare / Parley. Not one of the issue's goals: what a server that has worked holds once quiet",
  },
]);
