import { integer, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../db/lazy-table.ts";

/**
 * Fixed rate windows shared by the nodes of a PostgreSQL cluster (src/limits/shared-limiter.ts):
 * one row per limiter and key (a member, an API key, an address and route, an account's failed
 * logins), counted by one atomic statement so every node sees the same count. Expired rows are
 * pruned. On SQLite (one process) the windows stay in memory.
 */
export const rateWindows = sqliteTable("rate_windows", () => ({
  /** the limiter's name and the key, e.g. `apiKey:<id>` */
  key: text("key").primaryKey(),
  /** when the window started (ms) */
  start: integer("start").notNull(),
  count: integer("count").notNull(),
}));
