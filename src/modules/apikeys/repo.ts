import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { Statement as SqliteStatement } from "bun:sqlite";
import type { DB } from "../../db/open.ts";
import { oncePer } from "../../db/prepared.ts";
import { sqliteOf } from "../../db/sqlite.ts";
import type { Statement } from "../../db/store.ts";
import { planLimitsInForceSql } from "../billing/repo.ts";
import { apiKeys } from "./table.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Inserts a key row (the hash, never the key). */
export async function insertApiKey(db: DB, workspaceId: string, row: Omit<ApiKeyRow, "workspaceId">): Promise<void> {
  await db.insert(apiKeys).values({ ...row, workspaceId }).run();
}

/** Keys that are not revoked, newest first. */
export async function listApiKeys(db: DB, workspaceId: string, page: number, limit: number): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const where = and(eq(apiKeys.workspaceId, workspaceId), isNull(apiKeys.revokedAt));
  const rows = await db.select().from(apiKeys).where(where).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).limit(limit).offset((page - 1) * limit).all();
  const total = (await db.select({ n: count() }).from(apiKeys).where(where).get())!.n;
  return { rows, total };
}

/** Revokes a live key of the workspace; false when there is none with that id. */
export async function revokeApiKey(db: DB, workspaceId: string, id: string, at: number): Promise<boolean> {
  const res = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .all();
  return res.length > 0;
}

/** A key as the request guard reads it, with the limits of its workspace's plan in force. */
export interface GuardKeyRow {
  id: string;
  workspaceId: string;
  expiresAt: number | null;
  revokedAt: number | null;
  /** the `limits` text of the plan in force; null when it is not in the table (the built-in catalogue answers then) */
  limits: string | null;
}

/**
 * The key by its hash, with the limits of its workspace's plan in force: the daily quota
 * needs them on every API-key request, and one statement costs less than three (statements,
 * not their rows, are the cost of a request).
 */
const KEY_BY_HASH_SQL = `SELECT k.id, k.workspace_id AS "workspaceId", k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt",
    ${planLimitsInForceSql("k.workspace_id")} AS limits
  FROM api_keys k WHERE k.key_hash = ?`;

/** The key-by-hash read, prepared once per store; `sync` reads on SQLite's connection (null on PostgreSQL). */
export interface KeyByHash {
  get: Statement<GuardKeyRow>["get"];
  sync: SqliteStatement<GuardKeyRow, [string]> | null;
}

/**
 * The request guard's read of an `X-API-Key`, on every API-key request: through the store, and
 * on SQLite also straight on its connection for the guard's synchronous path.
 */
export const keyByHash = oncePer((db: DB): KeyByHash => {
  const stmt = db.prepare<GuardKeyRow>(KEY_BY_HASH_SQL);
  const sqlite = sqliteOf(db);
  return { get: (...params) => stmt.get(...params), sync: sqlite ? sqlite.prepare<GuardKeyRow, [string]>(KEY_BY_HASH_SQL) : null };
});
