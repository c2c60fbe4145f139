import { index, integer, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../db/lazy-table.ts";

/**
 * The events of the last minutes, for the nodes of a PostgreSQL cluster (src/events/cluster.ts):
 * each committed event is written here in its transaction with a number that grows in commit
 * order, and announced to the other nodes by NOTIFY. A node reads the rows when an announcement
 * is too large to carry the event, and after its listening connection was lost (it catches up
 * from the last number it saw). Pruned after a few minutes. Unused on SQLite (one process).
 */
export const clusterEvents = sqliteTable(
  "cluster_events",
  () => ({
    seq: integer("seq").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    /** the runtime that committed it: a node does not deliver its own events twice */
    origin: text("origin").notNull(),
    /** the event as JSON ({id, workspaceId, event, timestamp, data}) */
    body: text("body").notNull(),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [index("cluster_events_created_idx").on(t.createdAt)],
);
