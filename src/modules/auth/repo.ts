import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { users, type Role } from "../users/table.ts";
import { workspaces } from "../workspaces/table.ts";

export type UserRow = typeof users.$inferSelect;

/**
 * A user by email, across workspaces: login and password reset start from an email alone
 * (emails are unique over the whole installation).
 */
export function findUserByEmail(db: DB, email: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.email, email)).get();
}

/** A user of a workspace. */
export function getUser(db: DB, workspaceId: string, userId: string): UserRow | undefined {
  return db
    .select()
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId)))
    .get();
}

export interface NewAccount {
  workspaceId: string;
  userId: string;
  tenantName: string;
  name: string;
  email: string;
  mobile: string | null;
  passwordHash: string;
  trialEndsAt: number;
  now: number;
}

/** Creates the workspace (trialing on Growth) and its owner in one transaction. */
export function createAccount(db: DB, a: NewAccount): void {
  db.transaction((tx) => {
    tx.insert(workspaces)
      .values({
        id: a.workspaceId,
        name: a.tenantName,
        planId: "growth",
        subscriptionStatus: "trialing",
        trialEndsAt: a.trialEndsAt,
        createdAt: a.now,
        updatedAt: a.now,
      })
      .run();
    tx.insert(users)
      .values({
        id: a.userId,
        workspaceId: a.workspaceId,
        email: a.email,
        name: a.name,
        passwordHash: a.passwordHash,
        mobile: a.mobile,
        role: "owner" satisfies Role,
        createdAt: a.now,
        updatedAt: a.now,
      })
      .run();
  });
}

type UserChanges = Partial<Pick<UserRow, "name" | "passwordHash" | "mobile" | "mobileVerifiedAt" | "emailVerifiedAt" | "twoFactorEnabled">>;

/** Updates a user of a workspace. */
export function updateUser(db: DB, workspaceId: string, userId: string, changes: UserChanges, now: number): void {
  db.update(users)
    .set({ ...changes, updatedAt: now })
    .where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId)))
    .run();
}

/** Whether the workspace makes every member pass a second factor. */
export function workspaceRequires2fa(db: DB, workspaceId: string): boolean {
  return db.select({ r: workspaces.require2fa }).from(workspaces).where(eq(workspaces.id, workspaceId)).get()?.r ?? false;
}

const profileStmt = preparedOnce((db) =>
  db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      role: users.role,
      tenantId: workspaces.id,
      tenantName: workspaces.name,
      twoFactorEnabled: users.twoFactorEnabled,
      mobile: users.mobile,
      mobileVerifiedAt: users.mobileVerifiedAt,
    })
    .from(users)
    .innerJoin(workspaces, eq(workspaces.id, users.workspaceId))
    .where(and(eq(users.workspaceId, sql.placeholder("ws")), eq(users.id, sql.placeholder("id"))))
    .prepare(),
);

/** The profile of a member (spec: id, email, name, role, tenantId, tenantName); prepared once: GET /api/auth/profile is hot. */
export function getProfile(db: DB, workspaceId: string, userId: string) {
  return profileStmt(db).get({ ws: workspaceId, id: userId });
}

/**
 * The verification step a user is at (D3). Registration verifies the mobile first and the email
 * last (the email step refuses before the mobile one), so a verified email means a registration
 * owner has both; an invited member's email is verified by the invitation itself and their
 * mobile, if any, is not required.
 */
export function nextStep(user: Pick<UserRow, "mobile" | "mobileVerifiedAt" | "emailVerifiedAt">): "mobile" | "email" | "done" {
  if (user.emailVerifiedAt != null) return "done";
  if (user.mobile && user.mobileVerifiedAt == null) return "mobile";
  return "email";
}

/** The number login codes may go to: only a verified one. */
export function verifiedMobile(user: Pick<UserRow, "mobile" | "mobileVerifiedAt">): string | null {
  return user.mobile && user.mobileVerifiedAt != null ? user.mobile : null;
}
