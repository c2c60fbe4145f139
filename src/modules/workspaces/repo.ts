import { and, asc, count, eq, isNull, or, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { usersSql } from "../users/repo.ts";
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
  patch: Partial<Pick<WorkspaceRow, "name" | "require2fa" | "optOutKeywords" | "optInKeywords" | "timezone">>,
  at: number,
): Promise<void> {
  await db.update(workspaces).set({ ...patch, updatedAt: at }).where(eq(workspaces.id, workspaceId)).run();
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
      members: sql<number>`${sql.raw(usersSql.memberCount('"workspaces"."id"'))}`,
      owner: sql<string | null>`${sql.raw(usersSql.ownerEmail('"workspaces"."id"'))}`,
    })
    .from(workspaces)
    .orderBy(asc(workspaces.createdAt))
    .all();
}

/** Workspaces whose id or exact name is `ref` (the CLI accepts either). */
export async function findWorkspacesByRef(db: DB, ref: string): Promise<WorkspaceRow[]> {
  return db.select().from(workspaces).where(sql`${workspaces.id} = ${ref} OR ${workspaces.name} = ${ref}`).all();
}

export async function countWorkspaces(db: DB): Promise<number> {
  return (await db.select({ n: count() }).from(workspaces).get())!.n;
}
