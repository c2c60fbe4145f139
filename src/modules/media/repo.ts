import { and, eq } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { media } from "./table.ts";

export type MediaRow = typeof media.$inferSelect;

/** Inserts a media row (its file is already written). */
export async function insertMedia(db: DB, workspaceId: string, row: Omit<MediaRow, "workspaceId">): Promise<void> {
  await db.insert(media).values({ ...row, workspaceId }).run();
}

/** One media row of the workspace. */
export async function findMedia(db: DB, workspaceId: string, id: string): Promise<MediaRow | undefined> {
  return await db.select().from(media).where(and(eq(media.workspaceId, workspaceId), eq(media.id, id))).get();
}
