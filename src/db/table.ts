import { text, integer } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "./lazy-table.ts";

/**
 * Secrets of the installation kept in the database (PostgreSQL): the nodes of a cluster have
 * data dirs of their own, so the JWT key and the credential key are made once, by the first
 * node, and read by every other. On SQLite they stay in `<dataDir>/secrets.json`.
 */
export const instanceSecrets = sqliteTable("instance_secrets", () => ({
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: integer("created_at").notNull(),
}));
