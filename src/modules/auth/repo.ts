import { eq } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { getProfileRow, insertUser, type ProfileRow, type UserRow } from "../users/repo.ts";
import { workspaces } from "../workspaces/table.ts";

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
    await insertUser(db, {
      id: a.userId,
      workspaceId: a.workspaceId,
      email: a.email,
      name: a.name,
      passwordHash: a.passwordHash,
      mobile: a.mobile,
      role: "owner",
      createdAt: a.now,
      updatedAt: a.now,
    });
  });
}

/** Whether the workspace makes every member pass a second factor. */
export async function workspaceRequires2fa(db: DB, workspaceId: string): Promise<boolean> {
  return (await db.select({ r: workspaces.require2fa }).from(workspaces).where(eq(workspaces.id, workspaceId)).get())?.r ?? false;
}

/** A profile row as the profile (spec: id, email, name, role, tenantId, tenantName, ...); none without its workspace, as the inner join was. */
export function profileOfRow(r: ProfileRow | null | undefined) {
  if (!r || r.tenantName === null) return undefined;
  const { id, email, name, role, tenantId, tenantName, mobile, mobileVerifiedAt } = r;
  return { id, email, name, role, tenantId, tenantName, twoFactorEnabled: r.twoFactorEnabled !== 0, mobile, mobileVerifiedAt };
}

/** The profile of a member of a workspace. */
export async function getProfile(db: DB, workspaceId: string, userId: string) {
  return profileOfRow(await getProfileRow(db, workspaceId, userId));
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
