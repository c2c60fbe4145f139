import { and, eq } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { users, type Role } from "../users/table.ts";
import { workspaces } from "../workspaces/table.ts";

export type UserRow = typeof users.$inferSelect;

/**
 * A user by email, across workspaces: login and password reset start from an email alone
 * (emails are unique over the whole installation).
 */
export async function findUserByEmail(db: DB, email: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(eq(users.email, email)).get();
}

/** A user of a workspace. */
export async function getUser(db: DB, workspaceId: string, userId: string): Promise<UserRow | undefined> {
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
  trialEndsAt: number | null;
  now: number;
}

/** Creates the workspace (trialing on Growth) and its owner in one transaction. */
export async function createAccount(db: DB, a: NewAccount): Promise<void> {
  await db.tx(async () => {
    await db
      .insert(workspaces)
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
    await db
      .insert(users)
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
export async function updateUser(db: DB, workspaceId: string, userId: string, changes: UserChanges, now: number): Promise<void> {
  await db
    .update(users)
    .set({ ...changes, updatedAt: now })
    .where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId)))
    .run();
}

/** Whether the workspace makes every member pass a second factor. */
export async function workspaceRequires2fa(db: DB, workspaceId: string): Promise<boolean> {
  return (await db.select({ r: workspaces.require2fa }).from(workspaces).where(eq(workspaces.id, workspaceId)).get())?.r ?? false;
}

/** A member's profile columns, as `PROFILE_COLUMNS` reads them (`u` is the users row). */
export interface ProfileRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  tenantId: string;
  tenantName: string | null;
  twoFactorEnabled: number;
  mobile: string | null;
  mobileVerifiedAt: number | null;
}

/**
 * The profile's columns of a users row `u`. The workspace name is a correlated subquery, not
 * a join: this SQLite build runs a two-table join several times slower than a lookup with a
 * subquery (3 us against 0.4 us in memory), and a user has exactly one workspace (foreign key).
 * The JWT guard reads the caller with these columns too, so GET /api/auth/profile answers
 * from the guard's row: one statement a request, not two (statements are its cost).
 */
export const PROFILE_COLUMNS = `u.id, u.email, u.name, u.role, u.workspace_id AS "tenantId",
  (SELECT w.name FROM workspaces w WHERE w.id = u.workspace_id) AS "tenantName",
  u.two_factor_enabled AS "twoFactorEnabled", u.mobile, u.mobile_verified_at AS "mobileVerifiedAt"`;

const PROFILE_SQL = `SELECT ${PROFILE_COLUMNS} FROM users u WHERE u.workspace_id = ? AND u.id = ?`;

/** A profile row as the profile (docs/authentication.md: id, email, name, role, tenantId, tenantName, ...); none without its workspace, as the inner join was. */
export function profileOfRow(r: ProfileRow | null | undefined) {
  if (!r || r.tenantName === null) return undefined;
  const { id, email, name, role, tenantId, tenantName, mobile, mobileVerifiedAt } = r;
  return { id, email, name, role, tenantId, tenantName, twoFactorEnabled: r.twoFactorEnabled !== 0, mobile, mobileVerifiedAt };
}

/** The profile of a member of a workspace. */
export async function getProfile(db: DB, workspaceId: string, userId: string) {
  return profileOfRow(await db.prepare<ProfileRow>(PROFILE_SQL).get(workspaceId, userId));
}

/**
 * The verification step a user is at (docs/authentication.md). Registration verifies the mobile first and the email
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
