import { index, integer, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

export const MEDIA_SOURCES = ["upload", "url", "base64", "inbound"] as const;

/** A stored media file; the bytes live in the media storage (`<dataDir>/media/<workspaceId>/<id>` by default; see storage/). */
export const media = sqliteTable(
  "media",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** sniffed from the bytes where the format has a signature */
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    filename: text("filename"),
    sha256: text("sha256").notNull(),
    source: text("source", { enum: MEDIA_SOURCES }).notNull(),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [index("media_ws_idx").on(t.workspaceId, t.id)],
);
