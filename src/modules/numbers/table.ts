import { index, integer, primaryKey, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/**
 * Whether a phone number is on the messaging network, as a session of the workspace last
 * found (cached for a day, so a big campaign does not ask the network about every number
 * again). Times are unix ms.
 */
export const numberChecks = sqliteTable(
  "number_checks",
  () => ({
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** digits with country code, no plus */
    phone: text("phone").notNull(),
    onNetwork: integer("on_network", { mode: "boolean" }).notNull(),
    checkedAt: integer("checked_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  }),
  (t) => [primaryKey({ columns: [t.workspaceId, t.phone] }), index("number_checks_expires_idx").on(t.expiresAt)],
);
