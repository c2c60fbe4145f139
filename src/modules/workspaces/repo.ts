import { and, asc, count, eq, isNull, or, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { users } from "../users/table.ts";
import { workspaces } from "./table.ts";

export type WorkspaceRow = typeof workspaces.$inferSelect;

/** The workspace row, or undefined. */
export async function findWorkspace(db: DB, workspaceId: string): Promise<WorkspaceRow | undefined> {
  return db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).get();
}

/** Changes the workspace's own settings. */
export async function updateWorkspace(
  db: DB,
  workspaceId: string,
  patch: Partial<Pick<WorkspaceRow, "name" | "require2fa" | "optOutKeywords" | "optInKeywords">>,
  at: number,
): Promise<void> {
  await db.update(workspaces).set({ ...patch, updatedAt: at }).where(eq(workspaces.id, workspaceId)).run();
}

/** Members without a verified mobile number: they cannot receive a login code. */
export async function countMembersWithoutVerifiedMobile(db: DB, workspaceId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), or(isNull(users.mobile), isNull(users.mobileVerifiedAt))))
    .get();
  return row!.n;
}

/**
 * Every workspace with its member count and owner: for the operator's CLI only (operator
 * power is access to the data dir, docs/operations.md), never reachable over HTTP.
 */
export async function listAllWorkspaces(db: DB) {
  return db
    .select({
      id: workspaces.id,
      name: workspaces.name,
      planId: workspaces.planId,
      status: workspaces.subscriptionStatus,
      trialEndsAt: workspaces.trialEndsAt,
      currentPeriodEnd: workspaces.currentPeriodEnd,
      createdAt: workspaces.createdAt,
      // qualified by hand: drizzle renders a single-table column unqualified, which the subquery would bind to users
      members: sql<number>`(SELECT count(*) FROM users u WHERE u.workspace_id = "workspaces"."id")`,
      owner: sql<string | null>`(SELECT u.email FROM users u WHERE u.workspace_id = "workspaces"."id" AND u.role = 'owner' LIMIT 1)`,
    })
    .from(workspaces)
    .orderBy(asc(workspaces.createdAt))
    .all();
}

/** Workspaces whose id or exact name is `ref` (the CLI accepts either). */
export async function findWorkspacesByRef(db: DB, ref: string): Promise<WorkspaceRow[]> {
  return db.select().from(workspaces).where(sql`${workspaces.id} = ${ref} OR ${workspaces.name} = ${ref}`).all();
}

/** Members of a workspace (operator CLI). */
export async function listUsersOf(db: DB, workspaceId: string) {
  return db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role, mobile: users.mobile, emailVerifiedAt: users.emailVerifiedAt, mobileVerifiedAt: users.mobileVerifiedAt, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.workspaceId, workspaceId))
    .orderBy(asc(users.createdAt))
    .all();
}

export async function countWorkspaces(db: DB): Promise<number> {
  return (await db.select({ n: count() }).from(workspaces).get())!.n;
}
