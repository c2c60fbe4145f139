import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { planById, type PlanLimits } from "./plans.ts";

export type QuotaResource = Exclude<keyof PlanLimits, "campaigns">;

interface WorkspacePlanRow {
  planId: string;
  status: "trialing" | "active" | "free" | "paused" | "past_due" | "cancelled";
}

function planRow(deps: Pick<AppDeps, "sqlite">, workspaceId: string): WorkspacePlanRow {
  const row = deps.sqlite
    .query("SELECT plan_id AS planId, subscription_status AS status FROM workspaces WHERE id = ?")
    .get(workspaceId) as WorkspacePlanRow | null;
  if (!row) throw errors.notFound("Workspace");
  return row;
}

/** The limits in force: Growth during the trial (D2), Free when free, paused or cancelled. */
export function effectiveLimits(deps: Pick<AppDeps, "sqlite">, workspaceId: string): PlanLimits {
  const { planId, status } = planRow(deps, workspaceId);
  if (status === "trialing") return planById("growth").limits;
  if (status === "free" || status === "paused" || status === "cancelled") return planById("free").limits;
  return planById(planId).limits;
}

/**
 * Throws 403 LIMIT_EXCEEDED when `used + adding` would pass the limit. Call it in the same
 * synchronous transaction as the insert it guards, so parallel requests cannot both pass.
 */
export function assertQuota(deps: Pick<AppDeps, "sqlite">, workspaceId: string, resource: QuotaResource, used: number, adding = 1): void {
  const limit = effectiveLimits(deps, workspaceId)[resource];
  if (used + adding > limit) throw errors.limitExceeded(`Plan limit reached: ${resource} (${limit})`);
}

/** Throws 403 SUBSCRIPTION_INACTIVE when the plan blocks outbound messaging (D2 `pause` policy). */
export function assertCanSend(deps: Pick<AppDeps, "sqlite">, workspaceId: string): void {
  const { status } = planRow(deps, workspaceId);
  if (status === "paused" || status === "cancelled") throw errors.subscriptionInactive("Outbound messaging is paused until a paid plan is chosen");
}
