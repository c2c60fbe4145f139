import type { Subprocess } from "bun";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "../..");
export const BUN = process.execPath;

export interface ChildServer {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  port: number;
  /** Everything the child wrote to stderr so far (its logs). */
  logs(): string;
  /** SIGTERM and wait; returns the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/**
 * Starts a real Parley server as a child process on a free port and waits for its
 * readiness line. `cmd` defaults to running from source with Bun; `databaseUrl` puts its
 * data in that PostgreSQL database (`--database-url`) instead of the data dir's SQLite file.
 */
export async function spawnServer(opts: { dataDir: string; databaseUrl?: string; args?: string[]; env?: Record<string, string>; cmd?: string[]; cwd?: string }): Promise<ChildServer> {
  const cmd = opts.cmd ?? [BUN, join(ROOT, "src/main.ts")];
  const db = opts.databaseUrl ? ["--database-url", opts.databaseUrl] : [];
  const proc = Bun.spawn([...cmd, "serve", "--port", "0", "--data-dir", opts.dataDir, ...db, "--network", "sim", "--log-format", "json", ...(opts.args ?? [])], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, PARLEY_LOG_LEVEL: "info", ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const { line, logs } = await listeningLine<{ listening: string; port: number }>(proc, "server", 20_000);
  return {
    proc,
    url: line.listening,
    port: line.port,
    logs,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

/**
 * Waits for a spawned Parley process's first stdout line (the JSON line it prints once listening)
 * and collects its stderr; throws with that stderr when it exits first or, given `timeoutMs`, is late.
 */
export async function listeningLine<T>(proc: Subprocess<"ignore", "pipe", "pipe">, what: string, timeoutMs?: number): Promise<{ line: T; logs: () => string }> {
  let stderr = "";
  (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  while (!out.includes("\n")) {
    if (Date.now() > deadline) throw new Error(`${what} did not start: ${stderr}`);
    const { done, value } = await reader.read();
    if (done) throw new Error(`${what} exited before listening (code ${await proc.exited}): ${stderr}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { line: JSON.parse(out.split("\n")[0]!) as T, logs: () => stderr };
}

/** Runs SQL on a database file from another process and commits it, as the operator CLI does. */
export function commitFromAnotherProcess(path: string, sql: string, params: (string | number | null)[] = []): void {
  const script = `const { Database } = require("bun:sqlite");
const d = new Database(${JSON.stringify(path)});
d.exec("PRAGMA busy_timeout = 5000");
d.query(${JSON.stringify(sql)}).run(...${JSON.stringify(params)});
d.close();`;
  const p = Bun.spawnSync([BUN, "-e", script], { stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`commit from another process failed: ${p.stderr.toString()}`);
}

/** A JSON request with a bearer token to a child server: the status and the parsed body. */
export type Caller = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** A Caller for whichever server `server()` names at the time of each call (a test restarts it). */
export function caller(server: () => ChildServer, token: string): Caller {
  return async (method, path, body) => {
    const res = await fetch(server().url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}
