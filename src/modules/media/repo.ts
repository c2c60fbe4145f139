import { and, eq } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { media } from "./table.ts";

export type MediaRow = typeof media.$inferSelect;

/** Inserts a media row (its file is already written). */
export function insertMedia(db: DB, workspaceId: string, row: Omit<MediaRow, "workspaceId">): void {
  db.insert(media).values({ ...row, workspaceId }).run();
}

/** One media row of the workspace. */
export function findMedia(db: DB, workspaceId: string, id: string): MediaRow | undefined {
  return db.select().from(media).where(and(eq(media.workspaceId, workspaceId), eq(media.id, id))).get();
}
