import { ACCESS_TTL_SECONDS, signToken, tokenKeys } from "../../src/auth/tokens.ts";
import type { Role } from "../../src/modules/users/roles.ts";
import type { TestApp } from "./app.ts";

export interface TestMember {
  userId: string;
  email: string;
  role: Role;
  token: string;
}

export interface TestWorkspace {
  id: string;
  owner: TestMember;
  /** Adds a verified member with a role and returns it with a fresh access token. */
  member(role: Role): Promise<TestMember>;
}

let seq = 0;

/** Inserts a verified workspace and owner straight into the database and mints tokens (no HTTP flow). */
export async function createWorkspace(t: TestApp, opts: { name?: string; status?: string; planId?: string } = {}): Promise<TestWorkspace> {
  const now = t.clock.now().getTime();
  const id = Bun.randomUUIDv7();
  await t.deps.db
    .prepare(
      `INSERT INTO workspaces (id, name, plan_id, subscription_status, trial_ends_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, opts.name ?? `Workspace ${++seq}`, opts.planId ?? "growth", opts.status ?? "trialing", now + 14 * 86_400_000, now, now);
  const member = async (role: Role): Promise<TestMember> => {
    const userId = Bun.randomUUIDv7();
    const email = `user${++seq}-${userId.slice(-6)}@example.com`;
    const hash = await Bun.password.hash("correct horse battery", { algorithm: "argon2id", memoryCost: 4096, timeCost: 1 });
    await t.deps.db
      .prepare(
        `INSERT INTO users (id, workspace_id, email, name, password_hash, mobile, role, mobile_verified_at, email_verified_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(userId, id, email, `Test ${role}`, hash, "919800000000", role, now, now, now, now);
    return { userId, email, role, token: await accessToken(t, userId, id, role) };
  };
  const owner = await member("owner");
  return { id, owner, member };
}

/** An access token as the login flow would issue it. */
export function accessToken(t: TestApp, userId: string, workspaceId: string, role: Role): Promise<string> {
  return signToken(tokenKeys(t.deps.config, t.deps.secrets.jwtSecret), t.clock, { sub: userId, tenant: workspaceId, role, typ: "access" }, ACCESS_TTL_SECONDS);
}

/** Inserts an API key of the workspace as the API-key module stores it (its SHA-256); the key and its row's id. */
export async function apiKeyFor(t: TestApp, ws: Pick<TestWorkspace, "id">, name = "k"): Promise<{ key: string; id: string }> {
  const key = "pk_" + Bun.randomUUIDv7().replace(/-/g, "") + "abcdef";
  const id = Bun.randomUUIDv7();
  await t.deps.db
    .prepare("INSERT INTO api_keys (id, workspace_id, name, prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .run(id, ws.id, name, key.slice(0, 8), Bun.SHA256.hash(key, "hex"), t.clock.now().getTime());
  return { key, id };
}
