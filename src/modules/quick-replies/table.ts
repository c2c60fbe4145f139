import { index, integer, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/** Canned answers of a workspace (docs/inbox.md): picked by `shortcut`, variables as in campaigns. Times are unix ms. */
export const quickReplies = sqliteTable(
  "quick_replies",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** lower case, without the leading slash the composer shows */
    shortcut: text("shortcut").notNull(),
    body: text("body").notNull(),
    /** the member who made it (no foreign key: the reply outlives its author) */
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [uniqueIndex("quick_replies_shortcut_uq").on(t.workspaceId, t.shortcut), index("quick_replies_ws_idx").on(t.workspaceId, t.id)],
);
