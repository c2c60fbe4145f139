import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { CheckoutInput, InvoiceView, PlanView, SubscriptionView, VerifyInput } from "./model.ts";
import { findPlan, listPlans, priceOf, UNLIMITED_PLAN_ID, type Plan } from "./plans.ts";
import { effectiveLimits, windowedUsage } from "./quota.ts";
import { createRazorpayOrder, paymentSignatureValid, razorpayConfigured } from "./razorpay.ts";
import { findOrder, findWorkspace, insertOrder, listInvoices, markOrderPaid, type InvoiceRow } from "./repo.ts";
import { activatePaidPeriod, planInForce } from "./subscription.ts";
import { QUOTA_RESOURCES, readUsage } from "./usage.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "config" | "log" | "apiQuota">;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function planView(p: Plan): PlanView {
  return { id: p.id, name: p.name, currency: p.currency, monthlyPaise: p.monthlyPaise, annualPaise: p.annualPaise, monthlyPrice: p.monthlyPaise / 100, annualPrice: p.annualPaise / 100, limits: { ...p.limits } };
}

/** Plans offered (active ones of the operator's catalogue). */
export async function offeredPlans(deps: Deps): Promise<PlanView[]> {
  return (await listPlans(deps.db)).filter((p) => p.active !== false).map(planView);
}

/** Plan, status, dates and usage against the quotas in force. */
export async function subscriptionOf(deps: Deps, workspaceId: string): Promise<SubscriptionView> {
  const ws = await findWorkspace(deps.db, workspaceId);
  if (!ws) throw errors.notFound("Workspace");
  const now = deps.clock.now();
  const limits = await effectiveLimits(deps, workspaceId);
  const unlimited = ws.planId === UNLIMITED_PLAN_ID;
  const usage: SubscriptionView["usage"] = {};
  for (const r of QUOTA_RESOURCES) {
    // API requests include the ones counted in memory and not yet written
    const used = r === "apiRequestsPerDay" ? await windowedUsage(deps, workspaceId, r) : await readUsage(deps.db, workspaceId, r, now);
    usage[r] = { used, limit: unlimited ? null : limits[r] };
  }
  return {
    planId: ws.planId,
    planName: (await findPlan(deps.db, ws.planId))?.name ?? ws.planId,
    status: ws.subscriptionStatus,
    effectivePlanId: planInForce(ws),
    trialEndsAt: iso(ws.trialEndsAt),
    currentPeriodEnd: iso(ws.currentPeriodEnd),
    interval: ws.billingInterval,
    provider: ws.billingProvider,
    checkoutAvailable: !unlimited && razorpayConfigured(deps.config),
    unlimited,
    campaigns: limits.campaigns,
    usage,
  };
}

/**
 * Starts a payment: creates a Razorpay order for the plan's price and answers what the
 * Checkout form needs. Without Razorpay keys billing is manual: 409 CONFLICT.
 */
export async function checkout(deps: Deps, workspaceId: string, input: CheckoutInput, userId: string | null) {
  const config = deps.config;
  if ((await findWorkspace(deps.db, workspaceId))?.planId === UNLIMITED_PLAN_ID) throw errors.conflict("This workspace is on the operator's unlimited plan: there is nothing to buy");
  if (!razorpayConfigured(config)) {
    throw errors.conflict("Online checkout is not configured on this server: billing is manual, ask the operator to set your plan");
  }
  const plan = await findPlan(deps.db, input.planId);
  if (!plan || plan.active === false) throw errors.validation({ planId: "is not a plan on offer" });
  const amount = priceOf(plan, input.interval);
  if (amount <= 0) throw errors.validation({ planId: "is free: nothing to pay" });
  const id = Bun.randomUUIDv7();
  const receipt = `rcpt_${id.replaceAll("-", "")}`; // Razorpay caps receipts at 40 characters
  const order = await createRazorpayOrder(config, {
    amount,
    currency: "INR",
    receipt,
    notes: { workspaceId, planId: plan.id, interval: input.interval },
  });
  const now = deps.clock.now().getTime();
  await insertOrder(deps.db, workspaceId, {
    id,
    provider: "razorpay",
    providerOrderId: order.id,
    planId: plan.id,
    interval: input.interval,
    amountPaise: amount,
    currency: "INR",
    receipt,
    status: "created",
    paymentId: null,
    createdBy: userId,
    createdAt: now,
    paidAt: null,
  });
  return { provider: "razorpay", keyId: config.razorpayKeyId, orderId: order.id, amount, currency: "INR", receipt, planId: plan.id, interval: input.interval };
}

/**
 * Verifies Checkout's answer: HMAC-SHA256(`order_id|payment_id`, key secret), compared in
 * constant time, then activates the plan of the order. Replaying a verified payment changes nothing.
 * The order is read in the transaction that pays it: two payments of one order cannot both pass.
 */
export async function verifyPayment(deps: Deps, workspaceId: string, input: VerifyInput): Promise<SubscriptionView> {
  const config = deps.config;
  if (!razorpayConfigured(config)) throw errors.conflict("Online checkout is not configured on this server: billing is manual");
  await deps.db.tx(async () => {
    const order = await findOrder(deps.db, workspaceId, input.razorpay_order_id);
    if (!order) throw errors.notFound("Order");
    if (!paymentSignatureValid(config.razorpayKeySecret, input.razorpay_order_id, input.razorpay_payment_id, input.razorpay_signature)) {
      throw errors.validation({ razorpay_signature: "does not match the order and payment" }, "Payment signature is invalid");
    }
    if (order.status === "paid" && order.paymentId !== input.razorpay_payment_id) throw errors.conflict("This order was already paid by another payment");
    const now = deps.clock.now().getTime();
    await activatePaidPeriod(deps, workspaceId, {
      provider: "razorpay",
      paymentRef: input.razorpay_payment_id,
      orderId: order.providerOrderId,
      planId: order.planId,
      interval: order.interval,
      amountPaise: order.amountPaise,
      currency: order.currency,
    });
    if (order.status !== "paid") await markOrderPaid(deps.db, workspaceId, order.id, input.razorpay_payment_id, now);
  });
  return subscriptionOf(deps, workspaceId);
}

function invoiceView(r: InvoiceRow): InvoiceView {
  return {
    id: r.id,
    provider: r.provider,
    paymentId: r.paymentRef,
    orderId: r.orderId,
    planId: r.planId,
    interval: r.interval,
    amountPaise: r.amountPaise,
    amount: r.amountPaise / 100,
    currency: r.currency,
    status: r.status,
    periodStart: iso(r.periodStart)!,
    periodEnd: iso(r.periodEnd)!,
    createdAt: iso(r.createdAt)!,
  };
}

/** Paid periods of the workspace, newest first. */
export async function invoicesOf(deps: Deps, workspaceId: string, page: number, limit: number): Promise<{ items: InvoiceView[]; total: number }> {
  const { rows, total } = await listInvoices(deps.db, workspaceId, page, limit);
  return { items: rows.map(invoiceView), total };
}
