// The sim network's memory stays flat however long it runs: RSS and JS heap after 10,000 sends
// against after 200,000 (a full GC before each reading), for the sim inside a process (a child
// of its own) and for the sim network process's server (what `parley sim-network` runs, in a
// child, sent to over a node's link). The sent log is on disk; memory holds a bounded ring of
// recent sends and a bounded window of client ids. The previous release's sim (git ref
// BENCH_PREVIOUS_REF, default main; skipped when git cannot give it) runs the same sends for
// comparison.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RemoteSimDriver } from "../src/network/sim-network/remote-driver.ts";
import { report, type Row } from "./lib/report.ts";
import { benchDir } from "./lib/tmp.ts";

const FIRST = 10_000;
const LAST = 200_000;
const CHECKPOINTS = [FIRST, 50_000, 100_000, LAST];
const mib = (b: number) => b / 1024 / 1024;

interface Reading {
  sent: number;
  rss: number;
  heapUsed?: number;
  seconds: number;
}

/** The in-process sim, in a child of its own (`driver`: another build's sim driver module). */
async function inProcess(driver?: string): Promise<Reading[]> {
  const env = { ...process.env, ...(driver ? { SIM_DRIVER: driver } : {}) };
  const p = Bun.spawn([process.execPath, join(import.meta.dir, "lib/sim-memory-child.ts"), ...CHECKPOINTS.map(String)], { stdout: "pipe", stderr: "inherit", env });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out.trim().split("\n").map((l) => JSON.parse(l));
}

/**
 * The sim network process's server, sent to through a link as a node does. It runs in a child
 * (bench/lib/sim-network-child.ts, the same server `parley sim-network` starts) that can be told
 * to run a full GC before each reading.
 */
async function separate(): Promise<Reading[]> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "lib/sim-network-child.ts")], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let buf = "";
  const nextLine = async () => {
    while (!buf.includes("\n")) buf += new TextDecoder().decode((await reader.read()).value);
    const line = buf.slice(0, buf.indexOf("\n"));
    buf = buf.slice(buf.indexOf("\n") + 1);
    return JSON.parse(line);
  };
  const url = ((await nextLine()) as { listening: string }).listening;
  const driver = new RemoteSimDriver({ url, node: "bench" });
  const connected = new Promise<void>((resolve) => driver.onEvent((e) => e.type === "connected" && resolve()));
  await driver.connect("s1", { credentials: null });
  while ((await driver.simControl.stateOf("s1")) !== "qr") await Bun.sleep(10);
  await driver.simControl.scan("s1", "919800000001");
  await connected;
  const rows: Reading[] = [];
  let sent = 0;
  const start = performance.now();
  for (const target of CHECKPOINTS) {
    while (sent < target) {
      const n = Math.min(200, target - sent);
      await Promise.all(Array.from({ length: n }, (_, i) => driver.send("s1", { to: "919800000002", type: "text", text: `message number ${sent + i} of the bench`, clientMessageId: `c${sent + i}` })));
      sent += n;
    }
    const seconds = (performance.now() - start) / 1000;
    proc.kill("SIGUSR2");
    const m = (await nextLine()) as { rss: number; heapUsed: number };
    rows.push({ sent, rss: m.rss, heapUsed: m.heapUsed, seconds });
  }
  reader.releaseLock();
  await driver.shutdown();
  proc.kill("SIGTERM");
  await proc.exited;
  return rows;
}

/** The previous release's sim driver, from git (its src/network folder in a temporary directory). */
function previousDriver(): string | null {
  const ref = process.env.BENCH_PREVIOUS_REF ?? "main";
  const dir = mkdtempSync(join(tmpdir(), "parley-simmem-prev-"));
  const root = join(import.meta.dir, "..");
  const tar = Bun.spawnSync(["bash", "-c", `git -C "${root}" archive "${ref}" src/network | tar -x -C "${dir}"`], { stderr: "pipe" });
  return tar.exitCode === 0 ? join(dir, "src/network/sim/driver.ts") : null;
}

const at = (r: Reading[], n: number) => r.find((x) => x.sent === n)!;
const trail = (r: Reading[], key: "rss" | "heapUsed") => r.map((x) => `${x.sent / 1000}k: ${mib(x[key]!).toFixed(1)}`).join(", ") + " MiB";

function flat(scenario: string, r: Reading[], key: "rss" | "heapUsed", goal: number): Row {
  const first = at(r, FIRST)[key]!;
  const last = at(r, LAST)[key]!;
  return {
    scenario,
    parley: mib(last),
    baseline: mib(first),
    ratio: first / last,
    unit: "MiB",
    baselineWhat: `after ${FIRST.toLocaleString("en")} sends`,
    goal: `flat: ratio at least ${goal}`,
    met: first / last >= goal,
    lowerIsBetter: true,
    notes: `${trail(r, key)}; ${Math.round(LAST / at(r, LAST).seconds)} sends/s`,
  };
}

const own = await inProcess();
const rows: Row[] = [
  flat(`in-process sim: JS heap after ${LAST.toLocaleString("en")} sends`, own, "heapUsed", 0.75),
  flat(`in-process sim: RSS after ${LAST.toLocaleString("en")} sends`, own, "rss", 0.75),
];
const prevPath = previousDriver();
if (prevPath) {
  const prev = await inProcess(prevPath);
  rows.push({
    scenario: `in-process sim: RSS after ${LAST.toLocaleString("en")} sends against the previous release's sim`,
    parley: mib(at(own, LAST).rss),
    baseline: mib(at(prev, LAST).rss),
    ratio: at(prev, LAST).rss / at(own, LAST).rss,
    unit: "MiB",
    baselineWhat: "previous release",
    lowerIsBetter: true,
    notes: `previous release: RSS ${trail(prev, "rss")}, heap ${trail(prev, "heapUsed")}`,
  });
}
const net = await separate();
rows.push(flat(`sim network process: JS heap after ${LAST.toLocaleString("en")} sends`, net, "heapUsed", 0.75));
rows.push(flat(`sim network process: RSS after ${LAST.toLocaleString("en")} sends`, net, "rss", 0.75));
report("sim-memory", "Sim network memory over 200,000 sends", rows);
