import { index, integer, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";

/**
 * The processes (`parley serve`) that work on this database: each writes its row at start,
 * renews `lastSeenAt` with every lease heartbeat and sets `stoppedAt` when it stops cleanly.
 * On SQLite there is one (the process); on PostgreSQL, one per node of the cluster.
 */
export const nodes = sqliteTable(
  "nodes",
  () => ({
    id: text("id").primaryKey(),
    /** where the node answers (its listen address, or the public URL when set) */
    url: text("url"),
    version: text("version").notNull(),
    startedAt: integer("started_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    /** set by a clean stop (SIGTERM); null while running or after a crash */
    stoppedAt: integer("stopped_at"),
  }),
  (t) => [index("nodes_last_seen_idx").on(t.lastSeenAt)],
);
