import { index, integer, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";
import type { SegmentFilter } from "./filter.ts";

/** A saved filter over the workspace's contacts (docs/contacts-and-campaigns.md). Times are unix ms. */
export const segments = sqliteTable(
  "segments",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    filter: text("filter", { mode: "json" }).$type<SegmentFilter>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [uniqueIndex("segments_name_uq").on(t.workspaceId, t.name), index("segments_ws_created_idx").on(t.workspaceId, t.createdAt, t.id)],
);
