import { index, integer, primaryKey, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/**
 * The groups a session is in, as the network last described them (listed, or seen on a group
 * message): the inbox shows a group conversation's name and members from here. Times are unix ms.
 */
export const chatGroups = sqliteTable(
  "chat_groups",
  () => ({
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    // no foreign key: a group conversation outlives a deleted session, and so does its name
    sessionId: text("session_id").notNull(),
    /** the network's address of the group (`<digits>@g.us` or `<digits>-<digits>@g.us`) */
    id: text("id").notNull(),
    name: text("name"),
    /** JSON array of the members: phone numbers, or `<digits>@lid` where the network hides one */
    participants: text("participants").notNull().default("[]"),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [primaryKey({ columns: [t.workspaceId, t.sessionId, t.id] }), index("chat_groups_session_idx").on(t.sessionId)],
);
