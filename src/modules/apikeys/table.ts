import { index, integer, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/** API keys (docs/api.md): only the SHA-256 of the key is stored. */
export const apiKeys = sqliteTable(
  "api_keys",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** first characters of the key, shown in lists */
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
  }),
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.keyHash), index("api_keys_workspace_idx").on(t.workspaceId)],
);
