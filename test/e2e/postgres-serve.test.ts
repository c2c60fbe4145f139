import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACCESS_TTL_SECONDS, signToken, tokenKeys } from "../../src/auth/tokens.ts";
import { systemClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { openStore } from "../../src/db/open.ts";
import { emptyPostgres, TEST_PG_URL } from "../helpers/postgres.ts";
import { spawnServer, type ChildServer } from "../helpers/process.ts";

// `parley serve` on an empty PostgreSQL database, as real processes: it migrates alone, writes no
// SQLite file and no secrets file, and two processes on one database migrate once and share the
// secrets the first one made (a token signed by one is accepted by the other).

const servers: ChildServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

test.skipIf(!TEST_PG_URL)("PostgreSQL (needs PARLEY_TEST_DATABASE_URL): two servers on an empty database migrate once, write no SQLite file, share their secrets", async () => {
  const pg = await emptyPostgres();
  const env = { PARLEY_DATABASE_URL: pg.url };
  const dirs = [mkdtempSync(join(tmpdir(), "parley-pg-a-")), mkdtempSync(join(tmpdir(), "parley-pg-b-"))];
  // started together: the migrations run under the write lock, once
  const [a, b] = await Promise.all(dirs.map((dataDir) => spawnServer({ dataDir, env })));
  servers.push(a!, b!);
  for (const s of [a!, b!]) expect((await (await fetch(`${s.url}/health`)).json()).data.status).toBe("ok");
  for (const d of dirs) {
    expect(existsSync(join(d, "parley.db"))).toBe(false);
    expect(existsSync(join(d, "secrets.json"))).toBe(false);
  }
  const migrated = [a!, b!].filter((s) => s.logs().includes('"database migrated"'));
  expect(migrated.length).toBe(1);

  // the secrets were made once, in the database; a token signed with them works on both servers
  const db = openStore({ dataDir: dirs[0]!, databaseUrl: pg.url });
  const secrets = await db.prepare<{ name: string; value: string }>("SELECT name, value FROM instance_secrets ORDER BY name").all();
  expect(secrets.map((r) => r.name)).toEqual(["credentialKey", "jwtSecret"]);
  const wsId = Bun.randomUUIDv7();
  const userId = Bun.randomUUIDv7();
  const now = Date.now();
  await db.prepare("INSERT INTO workspaces (id, name, plan_id, subscription_status, trial_ends_at, created_at, updated_at) VALUES (?, 'PG', 'growth', 'trialing', ?, ?, ?)").run(wsId, now + 86_400_000, now, now);
  await db
    .prepare(
      `INSERT INTO users (id, workspace_id, email, name, password_hash, mobile, role, mobile_verified_at, email_verified_at, created_at, updated_at)
       VALUES (?, ?, 'owner@pg.test', 'Owner', 'x', '919800000000', 'owner', ?, ?, ?, ?)`,
    )
    .run(userId, wsId, now, now, now, now);
  await db.close();
  const jwtSecret = secrets.find((r) => r.name === "jwtSecret")!.value;
  const token = await signToken(tokenKeys(loadConfig({}), jwtSecret), systemClock, { sub: userId, tenant: wsId, role: "owner", typ: "access" }, ACCESS_TTL_SECONDS);
  for (const s of [a!, b!]) {
    const r = await fetch(`${s.url}/api/auth/profile`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { data: { email: string } }).data.email).toBe("owner@pg.test");
  }
  await pg.drop();
});
