import { and, count, desc, eq } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import type { SegmentFilter } from "./filter.ts";
import { segments } from "./table.ts";

export type SegmentRow = typeof segments.$inferSelect;

/** One segment of the workspace. */
export async function findSegment(db: DB, workspaceId: string, id: string): Promise<SegmentRow | undefined> {
  return db.select().from(segments).where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id))).get();
}

/** The segment of a name, if any (names are unique per workspace). */
export async function findSegmentByName(db: DB, workspaceId: string, name: string): Promise<SegmentRow | undefined> {
  return db.select().from(segments).where(and(eq(segments.workspaceId, workspaceId), eq(segments.name, name))).get();
}

export async function insertSegment(db: DB, workspaceId: string, row: { id: string; name: string; filter: SegmentFilter; at: number }): Promise<void> {
  await db.insert(segments).values({ id: row.id, workspaceId, name: row.name, filter: row.filter, createdAt: row.at, updatedAt: row.at }).run();
}

export async function updateSegmentRow(db: DB, workspaceId: string, id: string, patch: { name?: string; filter?: SegmentFilter }, at: number): Promise<void> {
  await db.update(segments).set({ ...patch, updatedAt: at }).where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id))).run();
}

/** Removes a segment; returns whether it existed. */
export async function deleteSegmentRow(db: DB, workspaceId: string, id: string): Promise<boolean> {
  return (await db.delete(segments).where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id))).run()).changes > 0;
}

/** A page of segments, newest first. */
export async function listSegments(db: DB, workspaceId: string, limit: number, offset: number): Promise<{ rows: SegmentRow[]; total: number }> {
  const where = eq(segments.workspaceId, workspaceId);
  const rows = await db.select().from(segments).where(where).orderBy(desc(segments.createdAt), desc(segments.id)).limit(limit).offset(offset).all();
  return { rows, total: (await db.select({ n: count() }).from(segments).where(where).get())?.n ?? 0 };
}
