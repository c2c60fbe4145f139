import { index, integer, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { users } from "../users/table.ts";
import { workspaces } from "../workspaces/table.ts";

/** One-time captcha challenges (docs/authentication.md); only an HMAC of the answer is kept. */
export const captchas = sqliteTable(
  "captchas",
  () => ({
    id: text("id").primaryKey(),
    answerHash: text("answer_hash").notNull(),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [index("captchas_expires_idx").on(t.expiresAt)],
);

/** `change_mobile`: a signed-in member confirming a new number (bound to that number). */
export const OTP_PURPOSES = ["mobile_verify", "email_verify", "login", "change_mobile"] as const;
export type OtpPurpose = (typeof OTP_PURPOSES)[number];
export const OTP_STATUSES = ["live", "used", "dead", "replaced"] as const;

/** 6-digit codes bound to a user and a purpose; rows also carry the send cooldown and hourly cap. */
export const otpCodes = sqliteTable(
  "otp_codes",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: OTP_PURPOSES }).notNull(),
    /** phone digits or lower-cased email: the send limits count per destination */
    destination: text("destination").notNull(),
    /** the login challenge a login code belongs to */
    challengeId: text("challenge_id"),
    codeHash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    status: text("status", { enum: OTP_STATUSES }).notNull().default("live"),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [index("otp_codes_destination_idx").on(t.destination, t.createdAt), index("otp_codes_user_idx").on(t.userId, t.purpose, t.status)],
);

/** A password login waiting for its second factor (docs/authentication.md). Completed exactly once. */
export const loginChallenges = sqliteTable(
  "login_challenges",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    completedAt: integer("completed_at"),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [index("login_challenges_expires_idx").on(t.expiresAt)],
);

/**
 * Opaque refresh tokens, stored as SHA-256. A login starts a family; each refresh rotates to a
 * new row of the same family; presenting a rotated token revokes the whole family.
 */
export const refreshTokens = sqliteTable(
  "refresh_tokens",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    familyId: text("family_id").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** absolute end of the family (30 days from login), copied to every rotation */
    expiresAt: integer("expires_at").notNull(),
    rotatedAt: integer("rotated_at"),
    revokedAt: integer("revoked_at"),
    /** logout, reuse, password_change, password_reset */
    revokedReason: text("revoked_reason"),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [
    uniqueIndex("refresh_tokens_hash_uq").on(t.tokenHash),
    index("refresh_tokens_family_idx").on(t.familyId),
    index("refresh_tokens_user_idx").on(t.userId),
  ],
);

/** Single-use password reset tokens (30 minutes), stored as SHA-256. */
export const passwordResets = sqliteTable(
  "password_resets",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [uniqueIndex("password_resets_hash_uq").on(t.tokenHash), index("password_resets_user_idx").on(t.userId, t.createdAt)],
);
