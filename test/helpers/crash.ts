// Shared by the kill -9 tests: a data dir prepared for a child server, and polling with a deadline.
import { expect } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ACCESS_TTL_SECONDS, signToken, tokenKeys } from "../../src/auth/tokens.ts";
import { systemClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { BUN, ROOT } from "./process.ts";

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
 * A migrated data dir with a workspace, its owner and a known JWT secret (`extra` adds rows
 * before the database is closed); returns an access token of the owner.
 */
export async function prepareDataDir(dataDir: string, extra?: (db: Database, wsId: string) => void): Promise<string> {
  const migrated = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), "migrate", "--data-dir", dataDir], { cwd: ROOT });
  expect(migrated.exitCode).toBe(0);
  const jwtSecret = "crash-test-secret-".padEnd(64, "x");
  writeFileSync(join(dataDir, "secrets.json"), JSON.stringify({ jwtSecret, credentialKey: "11".repeat(32) }), { mode: 0o600 });
  const wsId = Bun.randomUUIDv7();
  const userId = Bun.randomUUIDv7();
  const now = Date.now();
  const db = new Database(join(dataDir, "parley.db"));
  db.query("INSERT INTO workspaces (id, name, plan_id, subscription_status, trial_ends_at, created_at, updated_at) VALUES (?, 'Crash', 'growth', 'trialing', ?, ?, ?)").run(wsId, now + 14 * 86_400_000, now, now);
  db.query(
    `INSERT INTO users (id, workspace_id, email, name, password_hash, mobile, role, mobile_verified_at, email_verified_at, created_at, updated_at)
     VALUES (?, ?, 'owner@crash.test', 'Owner', 'x', '919800000000', 'owner', ?, ?, ?, ?)`,
  ).run(userId, wsId, now, now, now, now);
  extra?.(db, wsId);
  db.close();
  return signToken(tokenKeys(loadConfig({}), jwtSecret), systemClock, { sub: userId, tenant: wsId, role: "owner", typ: "access" }, ACCESS_TTL_SECONDS);
}
