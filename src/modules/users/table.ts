import { index, integer, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";
import { ROLES } from "./roles.ts";

/** A member of exactly one workspace. Email is stored lower-cased and unique. */
export const users = sqliteTable(
  "users",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("password_hash").notNull(),
    /** digits with country code, no plus */
    mobile: text("mobile"),
    role: text("role", { enum: ROLES }).notNull(),
    mobileVerifiedAt: integer("mobile_verified_at"),
    emailVerifiedAt: integer("email_verified_at"),
    twoFactorEnabled: integer("two_factor_enabled", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [uniqueIndex("users_email_uq").on(t.email), index("users_workspace_idx").on(t.workspaceId)],
);
