import { Database } from "bun:sqlite";
import { join } from "node:path";

/**
 * Inserts a verified workspace and owner straight into a running server's database file
 * (WAL: the server keeps serving). For end-to-end tests of operator commands.
 */
export function seedWorkspace(dataDir: string, name = "Acme"): { workspaceId: string; ownerId: string } {
  const db = new Database(join(dataDir, "parley.db"));
  db.exec("PRAGMA busy_timeout = 5000");
  const now = Date.now();
  const workspaceId = Bun.randomUUIDv7();
  const ownerId = Bun.randomUUIDv7();
  db.query(
    `INSERT INTO workspaces (id, name, plan_id, subscription_status, trial_ends_at, created_at, updated_at)
     VALUES (?, ?, 'growth', 'trialing', ?, ?, ?)`,
  ).run(workspaceId, name, now + 14 * 86_400_000, now, now);
  db.query(
    `INSERT INTO users (id, workspace_id, email, name, password_hash, mobile, role, mobile_verified_at, email_verified_at, created_at, updated_at)
     VALUES (?, ?, ?, 'Owner', 'x', '919800000000', 'owner', ?, ?, ?, ?)`,
  ).run(ownerId, workspaceId, `owner-${ownerId.slice(-8)}@example.com`, now, now, now, now);
  db.close();
  return { workspaceId, ownerId };
}
