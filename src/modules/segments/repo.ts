import { and, count, desc, eq } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import type { SegmentFilter } from "./filter.ts";
import { segments } from "./table.ts";

export type SegmentRow = typeof segments.$inferSelect;

/** One segment of the workspace. */
export function findSegment(db: DB, workspaceId: string, id: string): SegmentRow | undefined {
  return db.select().from(segments).where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id))).get();
}

/** The segment of a name, if any (names are unique per workspace). */
export function findSegmentByName(db: DB, workspaceId: string, name: string): SegmentRow | undefined {
  return db.select().from(segments).where(and(eq(segments.workspaceId, workspaceId), eq(segments.name, name))).get();
}

export function insertSegment(db: DB, workspaceId: string, row: { id: string; name: string; filter: SegmentFilter; at: number }): void {
  db.insert(segments).values({ id: row.id, workspaceId, name: row.name, filter: row.filter, createdAt: row.at, updatedAt: row.at }).run();
}

export function updateSegmentRow(db: DB, workspaceId: string, id: string, patch: { name?: string; filter?: SegmentFilter }, at: number): void {
  db.update(segments).set({ ...patch, updatedAt: at }).where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id))).run();
}

/** Removes a segment; returns whether it existed. */
export function deleteSegmentRow(db: DB, workspaceId: string, id: string): boolean {
  return db.delete(segments).where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, id))).returning({ id: segments.id }).all().length > 0;
}

/** A page of segments, newest first. */
export function listSegments(db: DB, workspaceId: string, limit: number, offset: number): { rows: SegmentRow[]; total: number } {
  const where = eq(segments.workspaceId, workspaceId);
  const rows = db.select().from(segments).where(where).orderBy(desc(segments.createdAt), desc(segments.id)).limit(limit).offset(offset).all();
  return { rows, total: db.select({ n: count() }).from(segments).where(where).get()?.n ?? 0 };
}
