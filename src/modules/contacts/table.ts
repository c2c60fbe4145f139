import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "../workspaces/table.ts";

/** A person the workspace talks to, one per phone number. Times are unix ms. */
export const contacts = sqliteTable(
  "contacts",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** digits with country code, no plus */
    phone: text("phone").notNull(),
    /** name the workspace gave the contact */
    name: text("name"),
    /** name the contact gave themselves on the network (updated by inbound messages) */
    pushName: text("push_name"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    optedOut: integer("opted_out", { mode: "boolean" }).notNull().default(false),
    lastInboundAt: integer("last_inbound_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("contacts_phone_uq").on(t.workspaceId, t.phone), index("contacts_ws_created_idx").on(t.workspaceId, t.createdAt, t.id)],
);
