import { and, asc, count, desc, eq, gt, isNull, lte, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { users, type Role } from "../users/table.ts";
import { workspaces } from "../workspaces/table.ts";
import { invitationMails, invitations } from "./table.ts";

export type MemberRow = Pick<typeof users.$inferSelect, "id" | "email" | "name" | "role" | "twoFactorEnabled" | "createdAt">;
export type InvitationRow = typeof invitations.$inferSelect;

const memberColumns = { id: users.id, email: users.email, name: users.name, role: users.role, twoFactorEnabled: users.twoFactorEnabled, createdAt: users.createdAt };

/** Members, owner first then by join date. */
export async function listMembers(db: DB, workspaceId: string, page: number, limit: number): Promise<{ rows: MemberRow[]; total: number }> {
  const where = eq(users.workspaceId, workspaceId);
  const ownerFirst = sql`CASE ${users.role} WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'agent' THEN 2 ELSE 3 END`;
  const rows = await db.select(memberColumns).from(users).where(where).orderBy(ownerFirst, asc(users.createdAt), asc(users.id)).limit(limit).offset((page - 1) * limit).all();
  return { rows, total: (await db.select({ n: count() }).from(users).where(where).get())!.n };
}

/** One member of the workspace, or undefined. */
export async function findMember(db: DB, workspaceId: string, userId: string): Promise<MemberRow | undefined> {
  return db.select(memberColumns).from(users).where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId))).get();
}

/** Sets a member's role. */
export async function setRole(db: DB, workspaceId: string, userId: string, role: Role, at: number): Promise<void> {
  await db.update(users).set({ role, updatedAt: at }).where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId))).run();
}

/** Deletes a member (their sessions of the dashboard end: the guard reads the user on every request). */
export async function deleteMember(db: DB, workspaceId: string, userId: string): Promise<boolean> {
  return (await db.delete(users).where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId))).returning({ id: users.id }).all()).length > 0;
}

/** Members of the workspace now. */
export async function countMembers(db: DB, workspaceId: string): Promise<number> {
  return (await db.select({ n: count() }).from(users).where(eq(users.workspaceId, workspaceId)).get())!.n;
}

/** Whether any account (in any workspace) uses this email. */
export async function emailTaken(db: DB, email: string): Promise<boolean> {
  return !!(await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get());
}

/** The workspace's name (for mail and the accept answer). */
export async function workspaceName(db: DB, workspaceId: string): Promise<string> {
  return (await db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, workspaceId)).get())?.name ?? "";
}

export async function insertInvitation(db: DB, workspaceId: string, row: Omit<InvitationRow, "workspaceId">): Promise<void> {
  await db.insert(invitations).values({ ...row, workspaceId }).run();
}

/** A pending (not accepted, not revoked, not expired) invitation for an email, if any. */
export async function findPendingByEmail(db: DB, workspaceId: string, email: string, now: number): Promise<InvitationRow | undefined> {
  return db
    .select()
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
    .get();
}

/** Invitations not accepted and not revoked (pending and expired), newest first. */
export async function listOpenInvitations(db: DB, workspaceId: string, page: number, limit: number): Promise<{ rows: InvitationRow[]; total: number }> {
  const where = and(eq(invitations.workspaceId, workspaceId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt));
  const rows = await db.select().from(invitations).where(where).orderBy(desc(invitations.createdAt), desc(invitations.id)).limit(limit).offset((page - 1) * limit).all();
  return { rows, total: (await db.select({ n: count() }).from(invitations).where(where).get())!.n };
}

export async function findInvitation(db: DB, workspaceId: string, id: string): Promise<InvitationRow | undefined> {
  return db.select().from(invitations).where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.id, id))).get();
}

/**
 * The invitation of a token hash. The token is the credential of the public accept route, so
 * this lookup is the one not scoped by workspace: the row names the workspace.
 */
export async function findInvitationByTokenHash(db: DB, tokenHash: string): Promise<InvitationRow | undefined> {
  return db.select().from(invitations).where(eq(invitations.tokenHash, tokenHash)).get();
}

export async function updateInvitation(db: DB, workspaceId: string, id: string, patch: Partial<Pick<InvitationRow, "tokenHash" | "expiresAt" | "acceptedAt" | "revokedAt">>): Promise<void> {
  await db.update(invitations).set(patch).where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.id, id))).run();
}

/**
 * Creates a member from an accepted invitation: the mail proved the address, so the email is
 * verified; a mobile given at acceptance is not (nothing checked it), so it gets no login codes.
 */
export async function insertInvitedMember(
  db: DB,
  workspaceId: string,
  u: { id: string; email: string; name: string; passwordHash: string; mobile: string | null; role: Role; at: number },
): Promise<void> {
  await db
    .insert(users)
    .values({
      id: u.id,
      workspaceId,
      email: u.email,
      name: u.name,
      passwordHash: u.passwordHash,
      mobile: u.mobile,
      role: u.role,
      mobileVerifiedAt: null,
      emailVerifiedAt: u.at,
      createdAt: u.at,
      updatedAt: u.at,
    })
    .run();
}

/**
 * Times of the invitation mails to a recipient since `since`, newest first. Across workspaces on
 * purpose: the limit protects the recipient's inbox, whoever invites.
 */
export async function recentInvitationMailTimes(db: DB, email: string, since: number): Promise<number[]> {
  const rows = await db
    .select({ createdAt: invitationMails.createdAt })
    .from(invitationMails)
    .where(and(eq(invitationMails.email, email), gt(invitationMails.createdAt, since)))
    .orderBy(desc(invitationMails.createdAt))
    .all();
  return rows.map((r) => r.createdAt);
}

export async function insertInvitationMail(db: DB, workspaceId: string, row: { id: string; email: string; createdAt: number }): Promise<void> {
  await db.insert(invitationMails).values({ ...row, workspaceId }).run();
}

export async function deleteInvitationMail(db: DB, workspaceId: string, id: string): Promise<void> {
  await db.delete(invitationMails).where(and(eq(invitationMails.workspaceId, workspaceId), eq(invitationMails.id, id))).run();
}

/** Drops a recipient's mail rows that no longer count (older than the hour), whichever workspace sent them. */
export async function dropOldInvitationMails(db: DB, email: string, before: number): Promise<void> {
  await db.delete(invitationMails).where(and(eq(invitationMails.email, email), lte(invitationMails.createdAt, before))).run();
}
