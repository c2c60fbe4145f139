// Parley's compiled binary (`parley serve --network sim`) on a fresh data dir (SQLite) or a
// fresh database (PostgreSQL), seeded through the binary's own operator commands and routes,
// exactly as an operator would: a workspace (its owner's password login), its plan's quotas
// raised so they never bind, an API key, and `sessions` sim sessions linked over HTTP (create,
// connect, scan). The same code seeds the current tree's binary and the previous release's.
import { join } from "node:path";
import type { Binary } from "./binaries.ts";
import { engineDatabase } from "./engine.ts";
import { benchDir } from "./tmp.ts";

export interface Parley {
  port: number;
  pid: number;
  base: string;
  token: string;
  apiKey: string;
  workspaceId: string;
  sessionIds: string[];
  dataDir: string;
  /** the PostgreSQL database's URL, or undefined on SQLite */
  databaseUrl?: string;
  proc: Bun.Subprocess;
  stop(): Promise<void>;
}

const PASSWORD = "Bench-password-1";
const EMAIL = "bench@example.com";
const BIG = "1000000000";
let nextPort = 20_000 + Math.floor(Math.random() * 20_000);

export interface ParleyOptions {
  /** settings as PARLEY_* environment variables, e.g. { PARLEY_SEND_MIN_GAP_MS: "0" } */
  env?: Record<string, string>;
  sessions?: number;
}

/** Starts `bin` (see the file's comment) and resolves once it is seeded and serving. */
export async function startParley(bin: Binary, o: ParleyOptions = {}): Promise<Parley> {
  const dataDir = benchDir("parley-bench-");
  const databaseUrl = await engineDatabase();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PARLEY_LOG_LEVEL: "error",
    PARLEY_DATA_DIR: dataDir,
    PARLEY_NETWORK: "sim",
    PARLEY_CAPTCHA: "off",
    PARLEY_RATE_LIMIT_PER_MINUTE: "1000000",
    ...(databaseUrl ? { PARLEY_DATABASE_URL: databaseUrl } : {}),
    ...o.env,
  };
  const cli = (args: string[], stdin?: string) => {
    const r = Bun.spawnSync([bin.path, ...args], { env, stdin: stdin ? Buffer.from(stdin) : "ignore", stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`${bin.name}: parley ${args.slice(0, 2).join(" ")}: ${r.stderr.toString()}${r.stdout.toString()}`);
    return r.stdout.toString();
  };
  cli(["migrate"]);
  cli(["workspaces", "create", "--name", "Bench", "--owner-email", EMAIL, "--owner-name", "Bench", "--owner-mobile", "+919800000001", "--password-stdin"], PASSWORD + "\n");
  const limits = ["messages-per-month", "contacts", "api-requests-per-day", "sessions", "webhooks", "team-seats"].flatMap((k) => [`--${k}`, BIG]);
  cli(["plan", "update", "--plan", "bench", "--name", "Bench", "--monthly", "1", "--annual", "10", "--campaigns", "yes", "--no-active", ...limits]);
  cli(["plan", "set", "--workspace", "Bench", "--plan", "bench"]);
  const apiKey = cli(["keys", "create", "--workspace", "Bench", "--name", "bench"]).split("\n")[0]!.trim();

  const port = nextPort++;
  const proc = Bun.spawn([bin.path, "serve", "--port", String(port)], { env, stdout: "ignore", stderr: "inherit" });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`${bin.name}: parley serve exited (${proc.exitCode})`);
    try {
      if ((await fetch(`${base}/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 30_000) throw new Error(`${bin.name}: parley serve never answered /health`);
    await Bun.sleep(2);
  }
  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const r = await fetch(base + path, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json().catch(() => ({}))) as any };
  };
  const login = await call("POST", "/api/auth/login", undefined, { email: EMAIL, password: PASSWORD });
  const token = login.body?.data?.accessToken ?? login.body?.data?.token;
  if (typeof token !== "string") throw new Error(`${bin.name}: login answered ${login.status} ${JSON.stringify(login.body)}`);
  const workspaceId = login.body?.data?.user?.workspaceId ?? login.body?.data?.workspace?.id ?? "";
  const sessionIds: string[] = [];
  for (let i = 0; i < (o.sessions ?? 1); i++) {
    const c = await call("POST", "/api/v1/chatapp", token, { name: `bench ${i}` });
    if (c.status !== 201) throw new Error(`${bin.name}: create session ${c.status} ${JSON.stringify(c.body)}`);
    const id = c.body.data.id as string;
    await call("POST", `/api/v1/chatapp/${id}/connect`, token);
    for (let t = 0; ; t++) {
      const s = await call("POST", `/api/sim/sessions/${id}/scan`, token, { phoneNumber: `91980000${1000 + i}` });
      if (s.status === 200) break;
      if (t > 2000) throw new Error(`${bin.name}: scan ${s.status} ${JSON.stringify(s.body)}`);
      await Bun.sleep(5);
    }
    for (let t = 0; ; t++) {
      const s = await call("GET", `/api/v1/chatapp/${id}/status`, token);
      if (s.body?.data?.status === "connected") break;
      if (t > 2000) throw new Error(`${bin.name}: session never connected: ${JSON.stringify(s.body)}`);
      await Bun.sleep(5);
    }
    sessionIds.push(id);
  }
  return {
    port,
    pid: proc.pid,
    base,
    token,
    apiKey,
    workspaceId,
    sessionIds,
    dataDir,
    databaseUrl,
    proc,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** The SQLite file of a server started on SQLite. */
export const sqliteFile = (p: Parley) => join(p.dataDir, "parley.db");
