import { integer} from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";

/**
 * One row rewritten by GET /ready: a commit is the only proof that writes still work (a full
 * disk or a read-only file still answers every read).
 */
export const healthProbe = sqliteTable("health_probe", () => ({
  id: integer("id").primaryKey(),
  checkedAt: integer("checked_at").notNull(),
}));
