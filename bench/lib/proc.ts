// Child processes and the load generators (wrk, autocannon): the load always comes from a
// process of its own, never from the server's event loop.
import type { Subprocess } from "bun";
import { join } from "node:path";

export interface Child<T> {
  info: T;
  proc: Subprocess;
  stop(): Promise<void>;
}

/** Spawns `bun <script> ...args` and waits for its first stdout line (JSON). */
export async function startChild<T>(script: string, args: string[] = []): Promise<Child<T>> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, script), ...args], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let buf = "";
  while (!buf.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited before it was ready`);
    buf += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    info: JSON.parse(buf.slice(0, buf.indexOf("\n"))) as T,
    proc,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export const hasWrk = Bun.which("wrk") !== null;

/** Maximum throughput: wrk (or autocannon when wrk is missing), `connections` kept alive, `seconds` long. */
export async function maxLoad(url: string, o: { connections?: number; seconds?: number; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<LoadResult> {
  const c = o.connections ?? 64;
  const d = o.seconds ?? 3;
  if (!hasWrk) return autocannon(url, { ...o, connections: c, seconds: d });
  const args = ["wrk", "-t", "1", "-c", String(c), "-d", `${d}s`, "--latency"];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}: ${v}`);
  if (o.method && o.method !== "GET") {
    const script = join(await tmpScriptDir(), `req-${Bun.randomUUIDv7()}.lua`);
    await Bun.write(script, `wrk.method = ${JSON.stringify(o.method)}\nwrk.body = ${luaString(o.body ?? "")}\n`);
    args.push("-s", script);
  }
  args.push(url);
  const p = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  const rps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? NaN);
  const non2xx = Number(out.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0);
  return { rps, p50: wrkMs(out, "50%"), p99: wrkMs(out, "99%"), non2xx };
}

/** A fixed request rate (autocannon's `-R`): latency at a load the server can carry. */
export async function fixedRate(url: string, rate: number, o: { connections?: number; seconds?: number; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<LoadResult> {
  return autocannon(url, { ...o, connections: o.connections ?? 64, seconds: o.seconds ?? 5, rate });
}

async function autocannon(url: string, o: { connections: number; seconds: number; rate?: number; method?: string; headers?: Record<string, string>; body?: string }): Promise<LoadResult> {
  const bin = join(import.meta.dir, "..", "..", "node_modules", ".bin", "autocannon");
  const args = [bin, "-j", "-c", String(o.connections), "-d", String(o.seconds)];
  if (o.rate) args.push("-R", String(o.rate));
  if (o.method) args.push("-m", o.method);
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}=${v}`);
  if (o.body) args.push("-b", o.body);
  args.push(url);
  const p = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  const j = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number };
  return { rps: j.requests.average, p50: j.latency.p50, p99: j.latency.p99, non2xx: j.non2xx };
}

function wrkMs(out: string, pct: string): number {
  const m = out.match(new RegExp(`\\s${pct}\\s+([\\d.]+)(us|ms|s)`));
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
}

const luaString = (s: string) => JSON.stringify(s); // JSON string escapes are valid Lua for ASCII bodies

let dir: string | undefined;
async function tmpScriptDir(): Promise<string> {
  if (!dir) dir = (await import("node:fs")).mkdtempSync(join((await import("node:os")).tmpdir(), "parley-wrk-"));
  return dir;
}
