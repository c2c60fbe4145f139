import { and, eq, gt, inArray, lt, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { idleSqlite } from "../../db/sqlite.ts";
import { numberChecks } from "./table.ts";

/** The unexpired answers the workspace holds for these numbers. */
export async function freshChecks(db: DB, workspaceId: string, phones: string[], now: number): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  if (!phones.length) return out;
  const rows = await db
    .select({ phone: numberChecks.phone, onNetwork: numberChecks.onNetwork })
    .from(numberChecks)
    .where(and(eq(numberChecks.workspaceId, workspaceId), inArray(numberChecks.phone, phones), gt(numberChecks.expiresAt, now)))
    .all();
  for (const r of rows) out.set(r.phone, r.onNetwork);
  return out;
}

const ONE_SQL = "SELECT on_network AS \"on\" FROM number_checks WHERE workspace_id = ? AND phone = ? AND expires_at > ?";

/** The unexpired answer for one number, if any. */
export async function freshCheck(db: DB, workspaceId: string, phone: string, now: number): Promise<boolean | undefined> {
  return (await freshChecks(db, workspaceId, [phone], now)).get(phone);
}

/**
 * The same answer read synchronously, on SQLite's connection while no transaction holds it
 * (one cached statement, no query builder, no await): the sender asks before every send.
 * `null` when it cannot be read so (PostgreSQL, or a transaction open): ask freshCheck then.
 */
export function freshCheckNow(db: DB, workspaceId: string, phone: string, now: number): boolean | undefined | null {
  const idle = idleSqlite(db);
  if (!idle) return null;
  const row = idle.query(ONE_SQL).get(workspaceId, phone, now) as { on: number } | null;
  return row ? Boolean(row.on) : undefined;
}

/** Stores answers of the network (replacing older ones). */
export async function saveChecks(db: DB, workspaceId: string, checks: { phone: string; onNetwork: boolean }[], now: number, ttlMs: number): Promise<void> {
  if (!checks.length) return;
  await db
    .insert(numberChecks)
    .values(checks.map((c) => ({ workspaceId, phone: c.phone, onNetwork: c.onNetwork, checkedAt: now, expiresAt: now + ttlMs })))
    .onConflictDoUpdate({
      target: [numberChecks.workspaceId, numberChecks.phone],
      set: { onNetwork: sql`excluded.on_network`, checkedAt: sql`excluded.checked_at`, expiresAt: sql`excluded.expires_at` },
    })
    .run();
}

/** Drops expired answers (periodic); returns how many. */
export async function pruneChecks(db: DB, now: number): Promise<number> {
  return (await db.delete(numberChecks).where(lt(numberChecks.expiresAt, now)).run()).changes;
}
