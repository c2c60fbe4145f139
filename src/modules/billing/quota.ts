import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { FREE_PLAN_ID, limitsOrFree, TRIAL_PLAN_ID, type PlanLimits } from "./plans.ts";
import { incrementCounter, readCounter, type QuotaResource, type WindowedResource } from "./usage.ts";

export type { QuotaResource } from "./usage.ts";

export const SUBSCRIPTION_STATUSES = ["trialing", "active", "free", "paused", "past_due", "cancelled"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

interface WorkspacePlanRow {
  planId: string;
  status: SubscriptionStatus;
}

async function planRow(deps: Pick<AppDeps, "db">, workspaceId: string): Promise<WorkspacePlanRow> {
  const row = await deps.db.prepare<WorkspacePlanRow>('SELECT plan_id AS "planId", subscription_status AS status FROM workspaces WHERE id = ?').get(workspaceId);
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
export async function effectiveLimits(deps: Pick<AppDeps, "db">, workspaceId: string): Promise<PlanLimits> {
  return (await planInForce(deps, workspaceId)).limits;
}

/** The subscription status and the limits in force, read together. */
export async function planInForce(deps: Pick<AppDeps, "db">, workspaceId: string): Promise<{ status: SubscriptionStatus; limits: PlanLimits }> {
  const row = await deps.db.prepare<PlanInForceRow>(PLAN_IN_FORCE).get(workspaceId);
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
const PLAN_IN_FORCE = `SELECT w.plan_id AS "planId", w.subscription_status AS status,
     (SELECT limits FROM plans WHERE id = ${effectivePlanIdSql("w.subscription_status", "w.plan_id")}) AS limits,
     (SELECT limits FROM plans WHERE id = '${FREE_PLAN_ID}') AS free
   FROM workspaces w WHERE w.id = ?`;

/**
 * Throws 403 LIMIT_EXCEEDED when `used + adding` would pass the limit. Call it in the same
 * `db.tx` as the count it is given and the insert it guards, so parallel requests cannot both pass.
 */
export async function assertQuota(deps: Pick<AppDeps, "db">, workspaceId: string, resource: QuotaResource, used: number, adding = 1): Promise<void> {
  assertWithin(await effectiveLimits(deps, workspaceId), resource, used, adding);
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
export async function consumeQuota(
  deps: Pick<AppDeps, "db" | "clock" | "apiQuota">,
  workspaceId: string,
  resource: WindowedResource,
  adding = 1,
  /** the limits in force, when the caller has just read them (the API-key guard) */
  limits?: PlanLimits,
): Promise<number> {
  const limit = (limits ?? (await effectiveLimits(deps, workspaceId)))[resource];
  const used =
    resource === "apiRequestsPerDay" && adding === 1
      ? await deps.apiQuota.take(workspaceId, deps.clock.now(), limit)
      : await incrementCounter(deps.db, workspaceId, resource, deps.clock.now(), limit, adding);
  if (used === null) throw errors.limitExceeded(`Plan limit reached: ${resource} (${limit})`);
  return used;
}

/** Usage of a windowed quota in its current window, including API requests counted but not yet written. */
export async function windowedUsage(deps: Pick<AppDeps, "db" | "clock" | "apiQuota">, workspaceId: string, resource: WindowedResource): Promise<number> {
  const now = deps.clock.now();
  const stored = await readCounter(deps.db, workspaceId, resource, now);
  return resource === "apiRequestsPerDay" ? stored + deps.apiQuota.pendingOf(workspaceId, now) : stored;
}

/** Throws 403 SUBSCRIPTION_INACTIVE when the plan blocks outbound messaging (docs/team-and-billing.md `pause` policy). */
export async function assertCanSend(deps: Pick<AppDeps, "db">, workspaceId: string): Promise<void> {
  assertStatusCanSend((await planRow(deps, workspaceId)).status);
}

/** assertCanSend for a subscription status the caller already read. */
export function assertStatusCanSend(status: SubscriptionStatus): void {
  if (status === "paused" || status === "cancelled") throw errors.subscriptionInactive("Outbound messaging is paused until a paid plan is chosen");
}

/** Throws 403 SUBSCRIPTION_INACTIVE when the plan in force lacks a feature (campaigns on Free). */
export async function assertFeature(deps: Pick<AppDeps, "db">, workspaceId: string, feature: "campaigns"): Promise<void> {
  if (!(await effectiveLimits(deps, workspaceId))[feature]) throw errors.subscriptionInactive(`The current plan does not include ${feature}`);
}
