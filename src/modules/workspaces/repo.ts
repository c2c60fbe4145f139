import { and, eq, isNull, or, sql } from "drizzle-orm";
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
export async function listAllWorkspaces(db: DB): Promise<OperatorWorkspaceRow[]> {
  // one statement of plain SQL: `parley workspaces list` runs this once, cold, where building it
  // with drizzle's query builder cost more than the read
  return db
    .prepare<OperatorWorkspaceRow>(
      `SELECT w.id, w.name, w.plan_id AS "planId", w.subscription_status AS "status", w.trial_ends_at AS "trialEndsAt",
        w.current_period_end AS "currentPeriodEnd", w.created_at AS "createdAt",
        ${usersSql.memberCount("w.id")} AS "members", ${usersSql.ownerEmail("w.id")} AS "owner"
      FROM workspaces w ORDER BY w.created_at`,
    )
    .all();
}

/** A row of listAllWorkspaces. */
export interface OperatorWorkspaceRow {
  id: string;
  name: string;
  planId: string;
  status: WorkspaceRow["subscriptionStatus"];
  trialEndsAt: number | null;
  currentPeriodEnd: number | null;
  createdAt: number;
  members: number;
  owner: string | null;
}

/** Workspaces whose id or exact name is `ref` (the CLI accepts either). */
export async function findWorkspacesByRef(db: DB, ref: string): Promise<WorkspaceRow[]> {
  return db.select().from(workspaces).where(sql`${workspaces.id} = ${ref} OR ${workspaces.name} = ${ref}`).all();
}

/**
 * Whether the server has any workspace (the setup link's question, asked at every start). A raw
 * statement: the query builder, run for the first time in the process, cost this start-up check
 * ≈2 ms of the event loop, during which a first request waited.
 */
export async function anyWorkspace(db: DB): Promise<boolean> {
  return (await db.prepare<{ one: number }>("SELECT 1 AS one FROM workspaces LIMIT 1").get()) !== undefined;
}
