import { and, asc, count, eq, gte, lt } from "drizzle-orm";
import type { DB } from "../../db/store.ts";
import { quickReplies } from "./table.ts";

export type QuickReplyRow = typeof quickReplies.$inferSelect;

const mine = (workspaceId: string, id: string) => and(eq(quickReplies.workspaceId, workspaceId), eq(quickReplies.id, id));

/** One quick reply of the workspace. */
export async function findQuickReply(db: DB, workspaceId: string, id: string): Promise<QuickReplyRow | undefined> {
  return await db.select().from(quickReplies).where(mine(workspaceId, id)).get();
}

/** The quick reply with a shortcut. */
export async function findByShortcut(db: DB, workspaceId: string, shortcut: string): Promise<QuickReplyRow | undefined> {
  return await db.select().from(quickReplies).where(and(eq(quickReplies.workspaceId, workspaceId), eq(quickReplies.shortcut, shortcut))).get();
}

/** A page of quick replies by shortcut (optionally those starting with `prefix`, on the unique index). */
export async function listQuickReplies(db: DB, workspaceId: string, q: { prefix?: string; limit: number; offset: number }): Promise<{ rows: QuickReplyRow[]; total: number }> {
  // a prefix is the range [prefix, prefix + U+FFFF): the (workspace_id, shortcut) index serves it on both engines
  const where = and(eq(quickReplies.workspaceId, workspaceId), q.prefix ? gte(quickReplies.shortcut, q.prefix) : undefined, q.prefix ? lt(quickReplies.shortcut, q.prefix + "\uffff") : undefined);
  const rows = await db.select().from(quickReplies).where(where).orderBy(asc(quickReplies.shortcut)).limit(q.limit).offset(q.offset).all();
  const total = (await db.select({ n: count() }).from(quickReplies).where(where).get())?.n ?? 0;
  return { rows, total: Number(total) };
}

export async function insertQuickReply(db: DB, row: QuickReplyRow): Promise<void> {
  await db.insert(quickReplies).values(row).run();
}

export async function updateQuickReplyRow(db: DB, workspaceId: string, id: string, p: { shortcut?: string; body?: string }, at: number): Promise<void> {
  await db.update(quickReplies).set({ ...p, updatedAt: at }).where(mine(workspaceId, id)).run();
}

/** Removes a quick reply; returns whether it existed. */
export async function deleteQuickReplyRow(db: DB, workspaceId: string, id: string): Promise<boolean> {
  return (await db.delete(quickReplies).where(mine(workspaceId, id)).run()).changes > 0;
}
