import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { findPlan, type BillingInterval } from "./plans.ts";
import { hmacHex, sameHex } from "../../crypto/hash.ts";
import { findOrderForWebhook, findWorkspace, markOrderPaid, recordEvent, setEventWorkspace } from "./repo.ts";
import { activatePaidPeriod, setStatus } from "./subscription.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "config" | "log">;

interface Entity {
  id?: string;
  order_id?: string;
  amount?: number;
  amount_paid?: number;
  currency?: string;
  status?: string;
  current_end?: number;
  notes?: Record<string, unknown> | unknown[];
}

interface RazorpayEvent {
  id?: string;
  event?: string;
  payload?: { payment?: { entity?: Entity }; order?: { entity?: Entity }; subscription?: { entity?: Entity } };
}

export interface WebhookOutcome {
  event: string;
  duplicate: boolean;
  /** what the event did: activated, extended, past_due, cancelled, ignored */
  action: string;
}

const sha256 = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

/**
 * POST /api/billing/webhooks/razorpay: checks `X-Razorpay-Signature` (HMAC-SHA256 hex of the
 * raw body with the webhook secret), then handles the event once per event id: a replay
 * answers 200 and does nothing. The event record and its effect commit together.
 */
export async function handleRazorpayWebhook(deps: Deps, raw: string, signature: string | undefined, eventIdHeader: string | undefined): Promise<WebhookOutcome> {
  const secret = deps.config.razorpayWebhookSecret;
  if (!secret) throw errors.conflict("Razorpay webhooks are not configured on this server (billing is manual)");
  if (!sameHex(hmacHex(secret, raw), signature)) {
    throw errors.validation({ "x-razorpay-signature": "does not match the body" }, "Webhook signature is invalid");
  }
  let body: RazorpayEvent;
  try {
    body = JSON.parse(raw) as RazorpayEvent;
  } catch {
    throw errors.validation({ body: "is not valid JSON" }, "Malformed JSON body");
  }
  const event = typeof body.event === "string" ? body.event : "unknown";
  const eventId = eventIdHeader?.trim() || (typeof body.id === "string" && body.id) || `sha256:${sha256(raw)}`;
  return deps.db.tx(async (): Promise<WebhookOutcome> => {
    const now = deps.clock.now().getTime();
    if (!(await recordEvent(deps.db, { provider: "razorpay", eventId, event, workspaceId: null, at: now }))) return { event, duplicate: true, action: "ignored" };
    const { action, workspaceId } = await apply(deps, event, body);
    if (workspaceId) await setEventWorkspace(deps.db, "razorpay", eventId, workspaceId);
    deps.log.info("razorpay webhook", { event, eventId, action, workspaceId });
    return { event, duplicate: false, action };
  });
}

type Applied = Promise<{ action: string; workspaceId?: string }>;

async function apply(deps: Deps, event: string, body: RazorpayEvent): Applied {
  const payment = body.payload?.payment?.entity;
  switch (event) {
    case "payment.captured":
    case "order.paid":
      return payForOrder(deps, body.payload?.order?.entity?.id ?? payment?.order_id, payment);
    case "subscription.activated":
    case "subscription.charged":
    case "subscription.resumed":
      return subscriptionPaid(deps, body.payload?.subscription?.entity, payment);
    case "subscription.pending":
    case "subscription.halted":
      return subscriptionStatus(deps, body.payload?.subscription?.entity, "past_due");
    case "subscription.cancelled":
    case "subscription.completed":
      return subscriptionStatus(deps, body.payload?.subscription?.entity, "cancelled");
    default:
      return { action: "ignored" };
  }
}

/** A captured payment of an order Parley created: activates the order's plan. */
async function payForOrder(deps: Deps, orderId: string | undefined, payment: Entity | undefined): Applied {
  if (!orderId || !payment?.id) return { action: "ignored" };
  const order = await findOrderForWebhook(deps.db, orderId);
  if (!order) return { action: "ignored" };
  if (typeof payment.amount === "number" && payment.amount < order.amountPaise) {
    deps.log.warn("razorpay payment below the order amount", { orderId, paymentId: payment.id });
    return { action: "ignored", workspaceId: order.workspaceId };
  }
  if (order.status === "paid" && order.paymentId !== payment.id) return { action: "ignored", workspaceId: order.workspaceId };
  const { applied } = await activatePaidPeriod(deps, order.workspaceId, {
    provider: "razorpay",
    paymentRef: payment.id,
    orderId: order.providerOrderId,
    planId: order.planId,
    interval: order.interval,
    amountPaise: order.amountPaise,
    currency: order.currency,
  });
  if (order.status !== "paid") await markOrderPaid(deps.db, order.workspaceId, order.id, payment.id, deps.clock.now().getTime());
  return { action: applied ? "activated" : "ignored", workspaceId: order.workspaceId };
}

function notesOf(e: Entity | undefined): Record<string, unknown> {
  return e?.notes && !Array.isArray(e.notes) ? e.notes : {};
}

async function subscriptionWorkspace(deps: Deps, sub: Entity | undefined): Promise<string | null> {
  const ws = notesOf(sub).workspaceId;
  return typeof ws === "string" && (await findWorkspace(deps.db, ws)) ? ws : null;
}

/** A Razorpay subscription (created with notes {workspaceId, planId, interval}) was paid: extend to its current_end. */
async function subscriptionPaid(deps: Deps, sub: Entity | undefined, payment: Entity | undefined): Applied {
  const workspaceId = await subscriptionWorkspace(deps, sub);
  const notes = notesOf(sub);
  const plan = typeof notes.planId === "string" ? await findPlan(deps.db, notes.planId) : null;
  const interval: BillingInterval = notes.interval === "annual" ? "annual" : "monthly";
  if (!workspaceId || !plan || !sub?.id) return { action: "ignored" };
  const periodEnd = typeof sub.current_end === "number" ? sub.current_end * 1000 : undefined;
  const { applied } = await activatePaidPeriod(deps, workspaceId, {
    provider: "razorpay",
    // a subscription event without a payment still pays one period once: key it by its period end
    paymentRef: payment?.id ?? `${sub.id}:${sub.current_end ?? "?"}`,
    orderId: payment?.order_id ?? null,
    planId: plan.id,
    interval,
    amountPaise: typeof payment?.amount === "number" ? payment.amount : interval === "annual" ? plan.annualPaise : plan.monthlyPaise,
    currency: payment?.currency ?? plan.currency,
    periodEnd,
  });
  return { action: applied ? "extended" : "ignored", workspaceId };
}

async function subscriptionStatus(deps: Deps, sub: Entity | undefined, status: "past_due" | "cancelled"): Applied {
  const workspaceId = await subscriptionWorkspace(deps, sub);
  if (!workspaceId) return { action: "ignored" };
  await setStatus(deps, workspaceId, status);
  return { action: status, workspaceId };
}
