// Shared by the kill -9 tests: the data a child server runs on (either engine), seeding it, and
// polling with a deadline.
import { afterAll, expect } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { ACCESS_TTL_SECONDS, signToken, tokenKeys } from "../../src/auth/tokens.ts";
import { systemClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { openStore } from "../../src/db/open.ts";
import type { DB } from "../../src/db/store.ts";
import { emptyPostgres, testEngine } from "./postgres.ts";
import { BUN, ROOT, spawnServer, type ChildServer } from "./process.ts";

/** Polls `fn` every 25 ms until it gives a truthy value; throws naming `what` after `timeoutMs`. */
export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/**
 * Where child servers of a test keep their data, on the suite's engine: a data dir always (the
 * sim network's files, media), and on PostgreSQL an empty database of its own that the first
 * server (or `migrateData`) migrates.
 */
export interface ServerData {
  readonly dataDir: string;
  /** The PostgreSQL database's URL; undefined on SQLite. */
  readonly databaseUrl?: string;
  /** Starts a real server on this data; restarts go through here too, so none misses the database. `dataDir` gives a second server a data dir of its own. */
  spawn(opts?: { env?: Record<string, string>; args?: string[]; dataDir?: string }): Promise<ChildServer>;
  /** A store on the same data from the test's process, as an operator command opens it (one, kept until `closeStore` or `close`). */
  store(): DB;
  /** The JWT secret the servers sign with when none is configured: secrets.json on SQLite, `instance_secrets` on PostgreSQL. */
  jwtSecret(): Promise<string>;
  /** Closes the store (`store()` opens a new one). */
  closeStore(): Promise<void>;
  /** Closes the store and drops the PostgreSQL database (after the servers are gone). */
  close(): Promise<void>;
}

/** Fresh data for child servers on the suite's engine (see `ServerData`). */
export async function serverData(prefix = "parley-crash-"): Promise<ServerData> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const pg = testEngine === "postgres" ? await emptyPostgres() : undefined;
  const databaseUrl = pg?.url;
  let db: DB | undefined;
  const data: ServerData = {
    dataDir,
    databaseUrl,
    // a server restarted on the same data dir is the same node (a fixed PARLEY_NODE_ID, as the cluster
    // guide advises): it takes its own sessions' leases back at once instead of waiting for them to expire
    spawn: (o = {}) => {
      const dir = o.dataDir ?? dataDir;
      return spawnServer({ dataDir: dir, databaseUrl, env: { PARLEY_NODE_ID: `node-${basename(dir)}`, ...o.env }, args: o.args });
    },
    store: () => (db ??= openStore({ dataDir, databaseUrl, databasePoolSize: 4 })),
    async jwtSecret() {
      if (!databaseUrl) return (JSON.parse(readFileSync(join(dataDir, "secrets.json"), "utf8")) as { jwtSecret: string }).jwtSecret;
      return (await data.store().prepare<{ value: string }>("SELECT value FROM instance_secrets WHERE name = 'jwtSecret'").get())!.value;
    },
    async closeStore() {
      await db?.close();
      db = undefined;
    },
    async close() {
      await data.closeStore();
      await pg?.drop();
    },
  };
  return data;
}

/**
 * Proof that the servers ran on the suite's engine, not beside it: on PostgreSQL the data dir
 * holds no SQLite file and the database holds the servers' workspaces; on SQLite the file is there.
 */
export async function expectDataOnEngine(data: ServerData): Promise<void> {
  expect({ engine: testEngine, sqliteFile: existsSync(join(data.dataDir, "parley.db")) }).toEqual({ engine: testEngine, sqliteFile: !data.databaseUrl });
  expect((await data.store().prepare<{ n: number }>("SELECT count(*) AS n FROM workspaces").get())!.n).toBeGreaterThan(0);
}

/** Migrates the data with the real `parley migrate` (the database URL from the environment, as an operator sets it). */
export function migrateData(data: ServerData): void {
  const env = { ...process.env, ...(data.databaseUrl ? { PARLEY_DATABASE_URL: data.databaseUrl } : {}) };
  const migrated = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), "migrate", "--data-dir", data.dataDir], { cwd: ROOT, env, stderr: "pipe" });
  if (migrated.exitCode !== 0) throw new Error(`parley migrate exited ${migrated.exitCode}: ${migrated.stderr.toString()}`);
}

/** A verified workspace (Growth, in trial) and its owner, written straight into the database; returns their ids. */
export async function seedWorkspace(db: DB, name = "Crash"): Promise<{ workspaceId: string; ownerId: string }> {
  const workspaceId = Bun.randomUUIDv7();
  const ownerId = Bun.randomUUIDv7();
  const now = Date.now();
  await db
    .prepare("INSERT INTO workspaces (id, name, plan_id, subscription_status, trial_ends_at, created_at, updated_at) VALUES (?, ?, 'growth', 'trialing', ?, ?, ?)")
    .run(workspaceId, name, now + 14 * 86_400_000, now, now);
  await db
    .prepare(
      `INSERT INTO users (id, workspace_id, email, name, password_hash, mobile, role, mobile_verified_at, email_verified_at, created_at, updated_at)
       VALUES (?, ?, ?, 'Owner', 'x', '919800000000', 'owner', ?, ?, ?, ?)`,
    )
    .run(ownerId, workspaceId, `owner-${ownerId.slice(-8)}@crash.test`, now, now, now, now);
  return { workspaceId, ownerId };
}

/** An access token of `ownerId` signed with `jwtSecret`. */
export function ownerToken(jwtSecret: string, workspaceId: string, ownerId: string): Promise<string> {
  return signToken(tokenKeys(loadConfig({}), jwtSecret), systemClock, { sub: ownerId, tenant: workspaceId, role: "owner", typ: "access" }, ACCESS_TTL_SECONDS);
}

/**
 * Migrated data with a workspace, its owner and a known JWT secret where the server reads it
 * (secrets.json on SQLite, `instance_secrets` rows on PostgreSQL); `extra` adds rows through a
 * store that is closed before this returns. Returns an access token of the owner.
 */
export async function prepareDataDir(data: ServerData, extra?: (db: DB, wsId: string) => Promise<void>): Promise<string> {
  migrateData(data);
  const jwtSecret = "crash-test-secret-".padEnd(64, "x");
  const credentialKey = "11".repeat(32);
  if (!data.databaseUrl) writeFileSync(join(data.dataDir, "secrets.json"), JSON.stringify({ jwtSecret, credentialKey }), { mode: 0o600 });
  const db = openStore({ dataDir: data.dataDir, databaseUrl: data.databaseUrl, databasePoolSize: 2 });
  try {
    if (data.databaseUrl) {
      const secret = db.prepare("INSERT INTO instance_secrets (name, value, created_at) VALUES (?, ?, ?)");
      await secret.run("jwtSecret", jwtSecret, Date.now());
      await secret.run("credentialKey", credentialKey, Date.now());
    }
    const { workspaceId, ownerId } = await seedWorkspace(db);
    await extra?.(db, workspaceId);
    return await ownerToken(jwtSecret, workspaceId, ownerId);
  } finally {
    await db.close();
  }
}

/**
 * Real `parley serve` processes of one test file on the same data (dir or database): `node(data,
 * id)` starts one as node `id` with `env`; every one is killed (SIGKILL) after the file's tests.
 * Call it at the file's top level.
 */
export function clusterNodes(env: Record<string, string> = { PARLEY_LOG_LEVEL: "warn" }): {
  node: (data: ServerData, id: string) => Promise<ChildServer>;
  servers: ChildServer[];
} {
  const servers: ChildServer[] = [];
  afterAll(() => {
    for (const s of servers) s.proc.kill("SIGKILL");
  });
  const node = async (data: ServerData, id: string) => {
    const s = await data.spawn({ env: { ...env, PARLEY_NODE_ID: id } });
    servers.push(s);
    return s;
  };
  return { node, servers };
}
