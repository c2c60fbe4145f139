import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { SUBSCRIPTION_STATUSES } from "./quota.ts";

// Response `data` shapes of the billing routes, for the OpenAPI document only (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, milliseconds");
const interval = () => z.enum(["monthly", "annual"]);
const provider = () => z.enum(["razorpay", "manual"]);

const plan = () =>
  z.object({
    id: z.string(),
    name: z.string(),
    currency: z.string(),
    monthlyPaise: z.number().int(),
    annualPaise: z.number().int(),
    monthlyPrice: z.number().describe("rupees, for display"),
    annualPrice: z.number().describe("rupees, for display"),
    limits: z.record(z.string(), z.union([z.number(), z.boolean()])).describe("quota name to its limit (campaigns: whether the plan has them)"),
  });

export const plansDoc = docSchema(() => z.array(plan()));

export const subscriptionDoc = docSchema(() =>
  z.object({
    planId: z.string(),
    planName: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    effectivePlanId: z.string().describe("the plan whose limits apply now"),
    trialEndsAt: isoTime().nullable(),
    currentPeriodEnd: isoTime().nullable(),
    interval: interval().nullable(),
    provider: provider().nullable(),
    checkoutAvailable: z.boolean().describe("false: billing is manual on this server, or the workspace is on the unlimited plan"),
    unlimited: z.boolean().describe("the operator's own plan: no quotas and no billing (the dashboard shows no billing screens)"),
    campaigns: z.boolean(),
    usage: z.record(z.string(), z.object({ used: z.number().int(), limit: z.number().int().nullable().describe("null: no limit (the unlimited plan)") })).describe("quota name to its use and limit"),
  }),
);

export const checkoutDoc = docSchema(() =>
  z.object({
    provider: z.literal("razorpay"),
    keyId: z.string().describe("Razorpay key id for Checkout"),
    orderId: z.string(),
    amount: z.number().int().describe("paise"),
    currency: z.literal("INR"),
    receipt: z.string(),
    planId: z.string(),
    interval: interval(),
  }),
);

export const invoiceDoc = docSchema(() =>
  z.object({
    id: z.uuid(),
    provider: provider(),
    paymentId: z.string(),
    orderId: z.string().nullable(),
    planId: z.string(),
    interval: interval(),
    amountPaise: z.number().int(),
    amount: z.number().describe("rupees"),
    currency: z.string(),
    status: z.literal("paid"),
    periodStart: isoTime(),
    periodEnd: isoTime(),
    createdAt: isoTime(),
  }),
);

export const razorpayOutcomeDoc = docSchema(() =>
  z.object({
    event: z.string(),
    duplicate: z.boolean().describe("the event id was handled before: nothing changed"),
    action: z.enum(["activated", "extended", "past_due", "cancelled", "ignored"]),
  }),
);
