/**
 * Interleaved A/B of two compiled binaries' operator commands: `parley workspaces list` on a data
 * dir set up once per binary (migrated, one workspace made with the binary's own commands) and
 * `parley --version`, spawn to exit; CPU from the child's resource usage (all its threads).
 * Then the start trace (src/start-mark.ts) of the list: main-thread CPU per step, medians.
 * `bun bench/cli-ab.ts <binary A> <binary B> [rounds]`; the order alternates round by round.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { freshCopy } from "./lib/binaries.ts";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";

// each binary runs from a copy written in this run (see freshCopy)
const copies = mkdtempSync(join(tmpdir(), "ab-bins-"));
const [binA, binB] = [freshCopy(process.argv[2]!, copies, "a"), freshCopy(process.argv[3]!, copies, "b")];
const rounds = Number(process.argv[4] ?? 21);

function setUp(bin: string): string {
  const dir = mkdtempSync(join(tmpdir(), "cli-ab-"));
  for (const args of [["migrate"], ["workspaces", "create", "--name", "Start", "--owner-email", "o@example.com", "--owner-name", "Owner", "--password", "correct-horse-battery-1"]]) {
    const r = Bun.spawnSync([bin, ...args, "--data-dir", dir], { env: { ...process.env, PARLEY_LOG_LEVEL: "silent" } });
    if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stderr.toString()}`);
  }
  return dir;
}

function run(cmd: string[], env: Record<string, string> = {}): { wall: number; cpu: number; stderr: string } {
  const t0 = performance.now();
  const r = Bun.spawnSync(cmd, { stdout: "ignore", stderr: "pipe", env: { ...process.env, ...env } });
  const wall = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  const u = r.resourceUsage!.cpuTime;
  return { wall, cpu: Number(u.user + u.system) / 1000, stderr: r.stderr.toString() };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const dirs = { A: setUp(binA), B: setUp(binB) };
const bins = { A: binA, B: binB };
for (const [name, args] of [["workspaces list", (d: string) => ["workspaces", "list", "--data-dir", d]], ["--version", () => ["--version"]]] as const) {
  const res = { A: { cpu: [] as number[], wall: [] as number[] }, B: { cpu: [] as number[], wall: [] as number[] } };
  const load0 = loadavg()[0]!.toFixed(1);
  for (let i = 0; i < rounds; i++) {
    for (const w of i % 2 ? (["B", "A"] as const) : (["A", "B"] as const)) {
      const s = run([bins[w], ...args(dirs[w])]);
      res[w].cpu.push(s.cpu);
      res[w].wall.push(s.wall);
    }
  }
  const f = (xs: number[]) => `${median(xs).toFixed(2)} (min ${Math.min(...xs).toFixed(2)})`;
  console.log(`${name}, ${rounds} rounds, load ${load0} → ${loadavg()[0]!.toFixed(1)}`);
  console.log(`  process CPU ms  A ${f(res.A.cpu)}  B ${f(res.B.cpu)}  B/A ${(median(res.B.cpu) / median(res.A.cpu)).toFixed(3)}`);
  console.log(`  wall ms         A ${f(res.A.wall)}  B ${f(res.B.wall)}  B/A ${(median(res.B.wall) / median(res.A.wall)).toFixed(3)}`);
}
const steps = { A: new Map<string, number[]>(), B: new Map<string, number[]>() };
for (let i = 0; i < rounds; i++) {
  for (const w of i % 2 ? (["B", "A"] as const) : (["A", "B"] as const)) {
    let prev = 0;
    for (const line of run([bins[w], "workspaces", "list", "--data-dir", dirs[w]], { PARLEY_START_MARKS: "1" }).stderr.split("\n")) {
      const m = line.match(/^mark \S+ \S+ (\S+) (.+)$/);
      if (!m) continue;
      const list = steps[w].get(m[2]!) ?? [];
      list.push(Number(m[1]) - prev);
      steps[w].set(m[2]!, list);
      prev = Number(m[1]);
    }
  }
}
console.log(`workspaces list's start trace, main-thread CPU ms per step (medians of ${rounds}), A / B`);
for (const [step, xs] of steps.A) console.log(`  ${step.padEnd(30)} ${median(xs).toFixed(2)} / ${median(steps.B.get(step) ?? [NaN]).toFixed(2)}`);
for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
rmSync(copies, { recursive: true, force: true });
