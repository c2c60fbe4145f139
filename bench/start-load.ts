/**
 * Where a start's wall time goes beside its CPU, on a machine with other work: interleaved starts
 * of a compiled hello (bench/lib/hello.ts, built here with the build script's flags) and of
 * `parley serve --network sim` on a migrated data dir, each polled as the start bench polls (fetch,
 * then 1 ms of sleep) until its first 200 of /health, while `HOGS` busy loops (default 0) hold
 * cores. At that 200, from /proc: the main thread's CPU, its time waiting for a core (run queue)
 * and its slices; the CPU of the process's other threads (collector, warm-up, allocator); and the
 * poller's own CPU (this process). Medians. The start bench reads wall time only, and on the
 * shared 2-core machine its ratio moved with the load more than with the code.
 * `HOGS=1 bun bench/start-load.ts <parley binary> [rounds]`
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshCopy } from "./lib/binaries.ts";

const root = join(import.meta.dir, "..");
const rounds = Number(process.argv[3] ?? 11);
const dir = mkdtempSync(join(tmpdir(), "start-load-"));
// a copy written in this run, as the hello is built in it (see freshCopy)
const parley = freshCopy(process.argv[2]!, dir, "parley");
const hello = join(dir, "hello");
const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
const flags = script.split(/\s+/).filter((f) => f.startsWith("--") && f !== "--outfile" && !f.startsWith("--bytecode-order"));
if (Bun.spawnSync([process.execPath, "build", ...flags, join(import.meta.dir, "lib/hello.ts"), "--outfile", hello], { cwd: root, stdout: "ignore" }).exitCode !== 0) throw new Error("hello build failed");
const data = join(dir, "data");
if (Bun.spawnSync([parley, "migrate", "--data-dir", data], { stdout: "ignore", stderr: "ignore" }).exitCode !== 0) throw new Error("migrate failed");

// below the kernel's ephemeral range (see bench/start-ab.ts)
let port = 22000 + Math.floor(Math.random() * 8000);
const stat = (pid: number, tid: number | string) => readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "latin1").trim().split(" ").map(Number);

async function start(cmd: (port: number) => string[]) {
  const p0 = ++port;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const p = Bun.spawn(cmd(p0), { stdout: "ignore", stderr: "ignore" });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${p0}/health`)).status === 200) break;
    } catch {
      if (p.exitCode !== null) throw new Error(`${cmd(p0)[0]} exited (${p.exitCode}) on port ${p0}`);
    }
    await Bun.sleep(1);
  }
  const wall = performance.now() - t0;
  const poll = process.cpuUsage(c0);
  const [cpu, wait, slices] = stat(p.pid, p.pid) as [number, number, number];
  let others = 0;
  for (const t of readdirSync(`/proc/${p.pid}/task`)) if (Number(t) !== p.pid) others += stat(p.pid, t)[0]!;
  p.kill("SIGKILL");
  await p.exited;
  return { wall, cpu: cpu / 1e6, wait: wait / 1e6, slices, others: others / 1e6, poller: (poll.user + poll.system) / 1000 };
}

const hogs = Array.from({ length: Number(process.env.HOGS ?? 0) }, () => Bun.spawn(["sh", "-c", "while :; do :; done"]));
type Start = Awaited<ReturnType<typeof start>>;
const runs: Record<"hello" | "parley", Start[]> = { hello: [], parley: [] };
try {
  for (let i = 0; i < rounds; i++) {
    runs.hello.push(await start((p) => [hello, String(p)]));
    runs.parley.push(await start((p) => [parley, "serve", "--network", "sim", "--port", String(p), "--data-dir", data, "--log-level", "silent"]));
  }
} finally {
  for (const h of hogs) h.kill("SIGKILL");
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${rounds} rounds, ${hogs.length} busy loops; ms (medians): wall, main thread CPU / run-queue wait / slices, other threads' CPU, poller CPU`);
for (const [name, xs] of Object.entries(runs)) {
  const m = (k: keyof Start) => median(xs.map((x) => x[k])).toFixed(k === "slices" ? 0 : 2);
  console.log(`  ${name.padEnd(7)} wall ${m("wall")}  main ${m("cpu")} / ${m("wait")} / ${m("slices")}  others ${m("others")}  poller ${m("poller")}`);
}
console.log(`  hello/parley, wall: ${(median(runs.hello.map((x) => x.wall)) / median(runs.parley.map((x) => x.wall))).toFixed(3)}`);
rmSync(dir, { recursive: true, force: true });
