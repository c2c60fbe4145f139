import { z } from "zod";
import { lazySchema } from "../../http/lazy-schema.ts";

export const checkoutBody = lazySchema(() =>
  z.object({
    planId: z.string().min(1).max(64),
    interval: z.enum(["monthly", "annual"]),
  }),
);

export type CheckoutInput = z.infer<typeof checkoutBody>;

export const verifyBody = lazySchema(() =>
  z.object({
    razorpay_order_id: z.string().min(1).max(64),
    razorpay_payment_id: z.string().min(1).max(64),
    razorpay_signature: z.string().min(1).max(256),
  }),
);
export type VerifyInput = z.infer<typeof verifyBody>;

export interface PlanView {
  id: string;
  name: string;
  currency: string;
  monthlyPaise: number;
  annualPaise: number;
  /** rupees, for display */
  monthlyPrice: number;
  annualPrice: number;
  limits: Record<string, number | boolean>;
}

export interface UsageItem {
  used: number;
  /** null: no limit (the unlimited plan) */
  limit: number | null;
}

export interface SubscriptionView {
  planId: string;
  planName: string;
  status: string;
  /** the plan whose limits apply now (growth during the trial, free when paused) */
  effectivePlanId: string;
  trialEndsAt: string | null;
  currentPeriodEnd: string | null;
  interval: "monthly" | "annual" | null;
  provider: "razorpay" | "manual" | null;
  /** whether checkout is available on this server (false: billing is manual) */
  checkoutAvailable: boolean;
  campaigns: boolean;
  /** the operator's own plan: no quotas and no billing (the dashboard shows no billing screens) */
  unlimited: boolean;
  usage: Record<string, UsageItem>;
}

export interface InvoiceView {
  id: string;
  provider: "razorpay" | "manual";
  paymentId: string;
  orderId: string | null;
  planId: string;
  interval: "monthly" | "annual";
  amountPaise: number;
  amount: number;
  currency: string;
  status: "paid";
  periodStart: string;
  periodEnd: string;
  createdAt: string;
}
