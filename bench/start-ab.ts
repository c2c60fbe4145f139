/**
 * Interleaved A/B of two compiled binaries' starts: each round spawns `serve --network sim` on a
 * data dir set up once (a workspace and an API key made with the binary's own commands), polls
 * every millisecond until the first 200 (of /health, or of GET /api/external/sessions with the
 * key), and reads the main thread's CPU at that moment (/proc/<pid>/task/<pid>/schedstat).
 * `bun bench/start-ab.ts <binary A> <binary B> [rounds]`; the order alternates round by round.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { freshCopy } from "./lib/binaries.ts";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";

// each binary runs from a copy written in this run (see freshCopy)
const copies = mkdtempSync(join(tmpdir(), "ab-bins-"));
const [binA, binB] = [freshCopy(process.argv[2]!, copies, "a"), freshCopy(process.argv[3]!, copies, "b")];
const rounds = Number(process.argv[4] ?? 15);

function setUp(bin: string): { dir: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "start-ab-"));
  const run = (...args: string[]) => {
    const r = Bun.spawnSync([bin, ...args, "--data-dir", dir], { env: { ...process.env, PARLEY_LOG_LEVEL: "silent" } });
    if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  };
  run("migrate");
  run("workspaces", "create", "--name", "Start", "--owner-email", "o@example.com", "--owner-name", "Owner", "--password", "correct-horse-battery-1");
  const key = run("keys", "create", "--workspace", "Start", "--name", "k").match(/pk_[A-Za-z0-9_-]+/)![0];
  return { dir, key };
}

const cpuMs = (pid: number) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "latin1").split(" ")[0]) / 1e6;

// below the kernel's ephemeral range (32768-60999 here): a port there can be taken by any outgoing
// connection on the machine meanwhile, and the server then exits with its port in use
let port = 22000 + Math.floor(Math.random() * 8000);
async function start(bin: string, dir: string, path: string, key: string): Promise<{ cpu: number; wall: number }> {
  port += 1;
  const t0 = performance.now();
  const p = Bun.spawn([bin, "serve", "--network", "sim", "--port", String(port), "--data-dir", dir, "--log-level", "silent"], { stdout: "ignore", stderr: "ignore" });
  const headers: Record<string, string> = path === "/health" ? {} : { "x-api-key": key };
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
      if (r.status === 200) {
        const cpu = cpuMs(p.pid);
        const wall = performance.now() - t0;
        await r.arrayBuffer();
        p.kill("SIGKILL");
        await p.exited;
        return { cpu, wall };
      }
      throw new Error(`${path}: ${r.status}`);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith(path)) throw err;
      // a server that exited (a port taken meanwhile, a failed start) would be polled for ever, holding the bench lock
      if (p.exitCode !== null) throw new Error(`${bin} serve exited (${p.exitCode}) before answering ${path} on port ${port}`);
      await Bun.sleep(1);
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const a = setUp(binA);
const b = setUp(binB);
for (const path of ["/health", "/api/external/sessions"]) {
  const res = { A: { cpu: [] as number[], wall: [] as number[] }, B: { cpu: [] as number[], wall: [] as number[] } };
  const load0 = loadavg()[0]!.toFixed(1);
  for (let i = 0; i < rounds; i++) {
    for (const which of i % 2 ? (["B", "A"] as const) : (["A", "B"] as const)) {
      const s = which === "A" ? await start(binA, a.dir, path, a.key) : await start(binB, b.dir, path, b.key);
      res[which].cpu.push(s.cpu);
      res[which].wall.push(s.wall);
    }
  }
  const f = (xs: number[]) => `${median(xs).toFixed(1)} (min ${Math.min(...xs).toFixed(1)})`;
  console.log(`${path}, ${rounds} rounds, load ${load0} → ${loadavg()[0]!.toFixed(1)}`);
  console.log(`  main-thread CPU ms  A ${f(res.A.cpu)}  B ${f(res.B.cpu)}  B/A ${(median(res.B.cpu) / median(res.A.cpu)).toFixed(3)}`);
  console.log(`  wall ms             A ${f(res.A.wall)}  B ${f(res.B.wall)}  B/A ${(median(res.B.wall) / median(res.A.wall)).toFixed(3)}`);
}
// the start trace (src/start-mark.ts): main-thread CPU per step, medians of interleaved starts
const steps = { A: new Map<string, number[]>(), B: new Map<string, number[]>() };
for (let i = 0; i < rounds; i++) {
  for (const which of i % 2 ? (["B", "A"] as const) : (["A", "B"] as const)) {
    const [bin, dir] = which === "A" ? [binA, a.dir] : [binB, b.dir];
    port += 1;
    const p = Bun.spawn([bin, "serve", "--network", "sim", "--port", String(port), "--data-dir", dir, "--log-level", "silent"], { stdout: "ignore", stderr: "pipe", env: { ...process.env, PARLEY_START_MARKS: "1" } });
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) break;
      } catch {
        if (p.exitCode !== null) throw new Error(`${bin} serve exited (${p.exitCode}) before answering /health on port ${port}`);
        await Bun.sleep(1);
      }
    }
    p.kill("SIGKILL");
    const text = await new Response(p.stderr).text();
    let prev = 0;
    for (const line of text.split("\n")) {
      const m = line.match(/^mark \S+ \S+ (\S+) (.+)$/);
      if (!m) continue;
      const cpu = Number(m[1]);
      const list = steps[which].get(m[2]!) ?? [];
      list.push(cpu - prev);
      steps[which].set(m[2]!, list);
      prev = cpu;
    }
  }
}
console.log(`start trace, main-thread CPU ms per step (medians of ${rounds}), A / B`);
for (const [step, xs] of steps.A) console.log(`  ${step.padEnd(24)} ${median(xs).toFixed(2)} / ${median(steps.B.get(step) ?? [NaN]).toFixed(2)}`);
rmSync(a.dir, { recursive: true, force: true });
rmSync(b.dir, { recursive: true, force: true });
rmSync(copies, { recursive: true, force: true });
