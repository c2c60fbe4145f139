// Seeds a runtime for benchmarks: a workspace on an unlimited plan, its owner with an access
// token, an API key, and sessions linked on the sim network (as the tests do, no HTTP flow).
import { ACCESS_TTL_SECONDS, signToken, tokenKeys } from "../../src/auth/tokens.ts";
import { upsertPlan } from "../../src/modules/billing/plans.ts";
import type { SqlParam } from "../../src/db/store.ts";
import type { SimDriver } from "../../src/network/sim/driver.ts";
import type { Runtime } from "../../src/runtime.ts";

export interface Seeded {
  workspaceId: string;
  userId: string;
  token: string;
  apiKey: string;
  sessionIds: string[];
}

const BIG = 1_000_000_000;

/** A workspace whose quotas never bind, with `sessions` connected sim sessions. */
export async function seed(rt: Runtime, sim: SimDriver, sessions = 1): Promise<Seeded> {
  const { db, clock, config, secrets } = rt.deps;
  // raw rows through the store's prepared statements (either engine), before any load
  const run = (sql: string, ...args: SqlParam[]) => db.prepare(sql).run(...args);
  const now = clock.now().getTime();
  await upsertPlan(db, "bench", {
    name: "Bench",
    monthlyPaise: 1,
    annualPaise: 10,
    limits: { sessions: 1000, messagesPerMonth: BIG, contacts: BIG, apiRequestsPerDay: BIG, webhooks: 1000, teamSeats: 1000, campaigns: true },
  }, now);
  const workspaceId = Bun.randomUUIDv7();
  await run(`INSERT INTO workspaces (id, name, plan_id, subscription_status, created_at, updated_at) VALUES (?, 'Bench', 'bench', 'active', ?, ?)`, workspaceId, now, now);
  const userId = Bun.randomUUIDv7();
  await run(`INSERT INTO users (id, workspace_id, email, name, password_hash, mobile, role, mobile_verified_at, email_verified_at, created_at, updated_at)
       VALUES (?, ?, 'bench@example.com', 'Bench', 'x', '919800000000', 'owner', ?, ?, ?, ?)`,
    userId, workspaceId, now, now, now, now);
  const token = await signToken(tokenKeys(config, secrets.jwtSecret), clock, { sub: userId, tenant: workspaceId, role: "owner", typ: "access" }, ACCESS_TTL_SECONDS);
  const apiKey = "pk_" + "b".repeat(8) + Bun.randomUUIDv7().replace(/-/g, "");
  await run("INSERT INTO api_keys (id, workspace_id, name, prefix, key_hash, created_at) VALUES (?, ?, 'bench', ?, ?, ?)", Bun.randomUUIDv7(), workspaceId, apiKey.slice(0, 11), new Bun.CryptoHasher("sha256").update(apiKey).digest("hex"), now);
  const sessionIds: string[] = [];
  for (let i = 0; i < sessions; i++) {
    const id = Bun.randomUUIDv7();
    const phone = `91980000${String(1000 + i)}`;
    await run(`INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, ?, 'connected', ?, ?, ?, ?)`, id, workspaceId, `bench ${i}`, phone, now, now, now);
    await sim.connect(id, { credentials: null });
    for (let t = 0; t < 500 && !sim.currentQr(id); t++) await Bun.sleep(2);
    sim.scan(id, phone);
    for (let t = 0; t < 500 && sim.stateOf(id) !== "connected"; t++) await Bun.sleep(2);
    sessionIds.push(id);
  }
  return { workspaceId, userId, token, apiKey, sessionIds };
}
