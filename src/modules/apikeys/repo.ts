import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
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
