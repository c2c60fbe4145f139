import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { FREE_PLAN_ID, findPlan, priceOf, UNLIMITED_PLAN_ID, type BillingInterval } from "./plans.ts";
import { effectivePlanId, type SubscriptionStatus } from "./quota.ts";
import { findInvoiceByPayment, findWorkspace, insertInvoice, updateSubscription, type WorkspaceRow } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "config">;

const DAY = 86_400_000;

/** `ms` plus `n` calendar months in UTC; the day is clamped (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(ms: number, n: number): number {
  const d = new Date(ms);
  const first = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return first.getTime();
}

export const intervalMonths = (i: BillingInterval) => (i === "annual" ? 12 : 1);

export interface PaidPeriod {
  provider: "razorpay" | "manual";
  /** the provider's payment id (or a manual reference): a payment activates once */
  paymentRef: string;
  orderId: string | null;
  planId: string;
  interval: BillingInterval;
  amountPaise: number;
  currency: string;
  /** end given by the provider (subscriptions); default: start + 1 or 12 months */
  periodEnd?: number;
}

export interface Activation {
  /** false when this payment had activated before (replayed verify or webhook) */
  applied: boolean;
  invoiceId: string;
}

/**
 * Records a paid period and activates the workspace: status active, the plan, the interval and
 * the period end. Idempotent on the payment. Paying again for the plan in force extends it from
 * the current period end; another plan starts now (no proration). Call inside `db.tx` (the
 * check for the payment and the activation must not be interleaved with another).
 */
export async function activatePaidPeriod(deps: Deps, workspaceId: string, p: PaidPeriod): Promise<Activation> {
  const seen = await findInvoiceByPayment(deps.db, workspaceId, p.provider, p.paymentRef);
  if (seen) return { applied: false, invoiceId: seen.id };
  const ws = await findWorkspace(deps.db, workspaceId);
  if (!ws) throw errors.notFound("Workspace");
  const now = deps.clock.now().getTime();
  const renewing = ws.subscriptionStatus === "active" && ws.planId === p.planId && (ws.currentPeriodEnd ?? 0) > now;
  const start = renewing ? ws.currentPeriodEnd! : now;
  const end = p.periodEnd && p.periodEnd > now ? p.periodEnd : addMonths(start, intervalMonths(p.interval));
  const invoiceId = Bun.randomUUIDv7();
  await insertInvoice(deps.db, workspaceId, {
    id: invoiceId,
    provider: p.provider,
    paymentRef: p.paymentRef,
    orderId: p.orderId,
    planId: p.planId,
    interval: p.interval,
    amountPaise: p.amountPaise,
    currency: p.currency,
    status: "paid",
    periodStart: start,
    periodEnd: end,
    createdAt: now,
  });
  await updateSubscription(
    deps.db,
    workspaceId,
    { planId: p.planId, subscriptionStatus: "active", billingInterval: p.interval, currentPeriodEnd: end, billingProvider: p.provider },
    now,
  );
  return { applied: true, invoiceId };
}

/**
 * Operator's manual billing (`parley plan set`): the free plan makes the workspace free;
 * a paid plan records a manual invoice at the catalogue price and activates one period.
 */
export async function setPlanManually(deps: Deps, workspaceId: string, planId: string, interval: BillingInterval): Promise<WorkspaceRow> {
  const plan = await findPlan(deps.db, planId);
  if (!plan) throw errors.validation({ plan: `unknown plan ${planId}` });
  return deps.db.tx(async () => {
    const now = deps.clock.now().getTime();
    if (!(await findWorkspace(deps.db, workspaceId))) throw errors.notFound("Workspace");
    if (plan.id === FREE_PLAN_ID) {
      await updateSubscription(deps.db, workspaceId, { planId: FREE_PLAN_ID, subscriptionStatus: "free", billingInterval: null, currentPeriodEnd: null, billingProvider: "manual" }, now);
    } else if (plan.id === UNLIMITED_PLAN_ID) {
      await grantUnlimited(deps, workspaceId);
    } else {
      await activatePaidPeriod(deps, workspaceId, {
        provider: "manual",
        paymentRef: `manual_${Bun.randomUUIDv7()}`,
        orderId: null,
        planId: plan.id,
        interval,
        amountPaise: priceOf(plan, interval),
        currency: plan.currency,
      });
    }
    return (await findWorkspace(deps.db, workspaceId))!;
  });
}

/**
 * Puts a workspace on the operator's unlimited plan: active with no period end, so no trial
 * ends, nothing lapses and nothing is invoiced. Operator paths only (never a route a
 * workspace can call).
 */
export async function grantUnlimited(deps: Pick<AppDeps, "db" | "clock">, workspaceId: string): Promise<void> {
  await updateSubscription(
    deps.db,
    workspaceId,
    { planId: UNLIMITED_PLAN_ID, subscriptionStatus: "active", billingInterval: null, trialEndsAt: null, currentPeriodEnd: null, billingProvider: "manual" },
    deps.clock.now().getTime(),
  );
}

/** Sets a status a provider reported (past_due, cancelled) on a workspace that exists. */
export async function setStatus(deps: Deps, workspaceId: string, status: SubscriptionStatus): Promise<void> {
  if (await findWorkspace(deps.db, workspaceId)) await updateSubscription(deps.db, workspaceId, { subscriptionStatus: status }, deps.clock.now().getTime());
}

/** Grace after a paid period ends without renewal, before the end policy applies. */
export const PAST_DUE_GRACE_MS = 7 * DAY;

/**
 * The periodic lifecycle (safe to run twice): an ended trial and a subscription past its grace
 * follow `trialEndPolicy` (`free`: Free plan; `pause`: paused, outbound messaging blocked);
 * an active period that ended turns past_due. Returns how many workspaces changed.
 */
export async function runLifecycle(deps: Deps): Promise<{ trialsEnded: number; pastDue: number; lapsed: number }> {
  const now = deps.clock.now().getTime();
  const endStatus = deps.config.trialEndPolicy === "pause" ? "paused" : "free";
  const db = deps.db;
  return db.tx(async () => {
    const { changes: trialsEnded } = await db
      .prepare(
        `UPDATE workspaces SET subscription_status = ?1, plan_id = ?2, billing_interval = NULL, updated_at = ?3
         WHERE subscription_status = 'trialing' AND trial_ends_at IS NOT NULL AND trial_ends_at <= ?3`,
      )
      .run(endStatus, FREE_PLAN_ID, now);
    const { changes: lapsed } = await db
      .prepare(
        `UPDATE workspaces SET subscription_status = ?1, plan_id = ?2, billing_interval = NULL, updated_at = ?3
         WHERE subscription_status = 'past_due' AND coalesce(current_period_end, 0) + ?4 <= ?3`,
      )
      .run(endStatus, FREE_PLAN_ID, now, PAST_DUE_GRACE_MS);
    const { changes: pastDue } = await db
      .prepare(
        `UPDATE workspaces SET subscription_status = 'past_due', updated_at = ?1
         WHERE subscription_status = 'active' AND current_period_end IS NOT NULL AND current_period_end <= ?1`,
      )
      .run(now);
    return { trialsEnded, pastDue, lapsed };
  });
}

/** Which plan's limits apply to a workspace row. */
export function planInForce(ws: WorkspaceRow): string {
  return effectivePlanId(ws.subscriptionStatus, ws.planId);
}
