import { and, asc, count, desc, eq, gt, isNull, lte, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { workspaces } from "../workspaces/table.ts";
import { invitationMails, invitations } from "./table.ts";

export type InvitationRow = typeof invitations.$inferSelect;

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
