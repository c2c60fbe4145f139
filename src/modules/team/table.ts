import { index, integer, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { ROLES } from "../users/roles.ts";
import { users } from "../users/table.ts";
import { workspaces } from "../workspaces/table.ts";

/** An invitation to join a workspace; only the SHA-256 of its token is stored. Times are unix ms. */
export const invitations = sqliteTable(
  "invitations",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** lower-cased */
    email: text("email").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    acceptedAt: integer("accepted_at"),
    revokedAt: integer("revoked_at"),
  }),
  (t) => [uniqueIndex("invitations_token_uq").on(t.tokenHash), index("invitations_workspace_idx").on(t.workspaceId, t.email)],
);

/**
 * One invitation mail (invite or resend), kept to limit mails per recipient: one a minute and
 * five an hour, counted across workspaces (the inbox is what is protected). Times are unix ms.
 */
export const invitationMails = sqliteTable(
  "invitation_mails",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** lower-cased recipient */
    email: text("email").notNull(),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [index("invitation_mails_email_idx").on(t.email, t.createdAt)],
);
