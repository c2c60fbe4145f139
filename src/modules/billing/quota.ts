import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { Database } from "bun:sqlite";
import { oncePer } from "../../db/prepared.ts";
import { FREE_PLAN_ID, limitsOrFree, TRIAL_PLAN_ID, type PlanLimits } from "./plans.ts";
import { dailyApiQuota } from "../apikeys/daily-quota.ts";
import { incrementCounter, readCounter, type QuotaResource, type WindowedResource } from "./usage.ts";

export type { QuotaResource } from "./usage.ts";

export const SUBSCRIPTION_STATUSES = ["trialing", "active", "free", "paused", "past_due", "cancelled"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

interface WorkspacePlanRow {
  planId: string;
  status: SubscriptionStatus;
}

function planRow(deps: Pick<AppDeps, "sqlite">, workspaceId: string): WorkspacePlanRow {
  const row = deps.sqlite
    .query("SELECT plan_id AS planId, subscription_status AS status FROM workspaces WHERE id = ?")
    .get(workspaceId) as WorkspacePlanRow | null;
  if (!row) throw errors.notFound("Workspace");
  return row;
}

const ON_TRIAL_PLAN: readonly SubscriptionStatus[] = ["trialing"];
const ON_FREE_PLAN: readonly SubscriptionStatus[] = ["free", "paused", "cancelled"];

/** The plan whose limits are in force: Growth during the trial (docs/team-and-billing.md), Free when free, paused or cancelled. */
export function effectivePlanId(status: SubscriptionStatus, planId: string): string {
  if (ON_TRIAL_PLAN.includes(status)) return TRIAL_PLAN_ID;
  if (ON_FREE_PLAN.includes(status)) return FREE_PLAN_ID;
  return planId; // active, and past_due during its grace period
}

/**
 * `effectivePlanId` as an SQL expression over a status and a plan-id column, built from the
 * same lists, for a statement that reads the limits in force together with something else
 * (the API-key guard reads them with the key: one statement a request instead of three).
 */
export function effectivePlanIdSql(status: string, planId: string): string {
  // equalities, not `IN (...)`: SQLite builds a temporary table for an IN list on every run
  const anyOf = (l: readonly string[]) => l.map((x) => `${status} = '${x}'`).join(" OR ");
  return `CASE WHEN ${anyOf(ON_TRIAL_PLAN)} THEN '${TRIAL_PLAN_ID}' WHEN ${anyOf(ON_FREE_PLAN)} THEN '${FREE_PLAN_ID}' ELSE ${planId} END`;
}

/** The limits in force for a workspace, read from the operator's catalogue. */
export function effectiveLimits(deps: Pick<AppDeps, "sqlite">, workspaceId: string): PlanLimits {
  return planInForce(deps, workspaceId).limits;
}

/** The subscription status and the limits in force, read together. */
export function planInForce(deps: Pick<AppDeps, "sqlite">, workspaceId: string): { status: SubscriptionStatus; limits: PlanLimits } {
  const row = planStmt(deps.sqlite).get(workspaceId);
  if (!row) throw errors.notFound("Workspace");
  return { status: row.status, limits: limitsOrFree(effectivePlanId(row.status, row.planId), row.limits, row.free) };
}

interface PlanInForceRow extends WorkspacePlanRow {
  /** the limits text of the plan in force; null when that plan is not in the table */
  limits: string | null;
  /** the Free plan's limits text (the fallback) */
  free: string | null;
}

// a send group and every quota check read it: the workspace and the limits text of the plan in
// force (the same SQL rule as the API-key guard's), in one statement
const planStmt = oncePer((sqlite: Database) =>
  sqlite.prepare<PlanInForceRow, [string]>(
    `SELECT w.plan_id AS planId, w.subscription_status AS status,
       (SELECT limits FROM plans WHERE id = ${effectivePlanIdSql("w.subscription_status", "w.plan_id")}) AS limits,
       (SELECT limits FROM plans WHERE id = '${FREE_PLAN_ID}') AS free
     FROM workspaces w WHERE w.id = ?1`,
  ),
);

/**
 * Throws 403 LIMIT_EXCEEDED when `used + adding` would pass the limit. Call it in the same
 * synchronous transaction as the insert it guards, so parallel requests cannot both pass.
 */
export function assertQuota(deps: Pick<AppDeps, "sqlite">, workspaceId: string, resource: QuotaResource, used: number, adding = 1): void {
  assertWithin(effectiveLimits(deps, workspaceId), resource, used, adding);
}

/** assertQuota against limits the caller already read (in the same transaction). */
export function assertWithin(limits: PlanLimits, resource: QuotaResource, used: number, adding = 1): void {
  const limit = limits[resource];
  if (used + adding > limit) throw errors.limitExceeded(`Plan limit reached: ${resource} (${limit})`);
}

/**
 * Takes `adding` units of a windowed quota (messages this month, API requests today) or throws
 * 403 LIMIT_EXCEEDED; check and count are one statement, so it holds under concurrency.
 * Inside the caller's transaction the count rolls back with the change it paid for. API
 * requests (one per API-key request) are counted in memory and written in batches instead
 * (apikeys/daily-quota.ts): there is no change to roll back with, and a write per request
 * was the cost of an API-key request.
 */
export function consumeQuota(
  deps: Pick<AppDeps, "sqlite" | "clock">,
  workspaceId: string,
  resource: WindowedResource,
  adding = 1,
  /** the limits in force, when the caller has just read them (the API-key guard) */
  limits?: PlanLimits,
): number {
  const limit = (limits ?? effectiveLimits(deps, workspaceId))[resource];
  const used =
    resource === "apiRequestsPerDay" && adding === 1
      ? dailyApiQuota(deps.sqlite).take(workspaceId, deps.clock.now(), limit)
      : incrementCounter(deps.sqlite, workspaceId, resource, deps.clock.now(), limit, adding);
  if (used === null) throw errors.limitExceeded(`Plan limit reached: ${resource} (${limit})`);
  return used;
}

/** Usage of a windowed quota in its current window, including API requests counted but not yet written. */
export function windowedUsage(deps: Pick<AppDeps, "sqlite" | "clock">, workspaceId: string, resource: WindowedResource): number {
  const now = deps.clock.now();
  const stored = readCounter(deps.sqlite, workspaceId, resource, now);
  return resource === "apiRequestsPerDay" ? stored + dailyApiQuota(deps.sqlite).pendingOf(workspaceId, now) : stored;
}

/** Throws 403 SUBSCRIPTION_INACTIVE when the plan blocks outbound messaging (the `pause` policy, docs/team-and-billing.md). */
export function assertCanSend(deps: Pick<AppDeps, "sqlite">, workspaceId: string): void {
  assertStatusCanSend(planRow(deps, workspaceId).status);
}

/** assertCanSend for a subscription status the caller already read. */
export function assertStatusCanSend(status: SubscriptionStatus): void {
  if (status === "paused" || status === "cancelled") throw errors.subscriptionInactive("Outbound messaging is paused until a paid plan is chosen");
}

/** Throws 403 SUBSCRIPTION_INACTIVE when the plan in force lacks a feature (campaigns on Free). */
export function assertFeature(deps: Pick<AppDeps, "sqlite">, workspaceId: string, feature: "campaigns"): void {
  if (!effectiveLimits(deps, workspaceId)[feature]) throw errors.subscriptionInactive(`The current plan does not include ${feature}`);
}
