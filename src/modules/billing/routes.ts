import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { readCapped } from "../../http/core-plugin.ts";
import { ok, pageQuery, paged } from "../../http/envelope.ts";
import { checkoutBody, verifyBody } from "./model.ts";
import { checkout, invoicesOf, offeredPlans, subscriptionOf, verifyPayment } from "./service.ts";
import { handleRazorpayWebhook } from "./webhook.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { checkoutDoc, invoiceDoc, plansDoc, razorpayOutcomeDoc, subscriptionDoc } from "./docs.ts";

const WEBHOOK_PATH = "/api/billing/webhooks/razorpay";

/**
 * The signature covers the exact bytes Razorpay sent, but the global parser turns JSON into
 * an object before any route-level parse hook runs; so this request is cloned on arrival and
 * the copy read (with the same cap) by the handler.
 */
const rawCopies = new WeakMap<Request, Request>();

/** /api/billing: plans, subscription, Razorpay checkout and verification, invoices, webhook. */
export function billingRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/api/billing", tags: ["billing"] })
    .onRequest(({ request }) => {
      // this hook sees every request: the cheap test first
      if (request.method === "POST" && request.url.includes(WEBHOOK_PATH) && new URL(request.url).pathname === WEBHOOK_PATH) rawCopies.set(request, request.clone());
    })
    .use(authGuard(deps))
    .post(
      "/webhooks/razorpay",
      async ({ request }) => {
        const copy = rawCopies.get(request);
        const raw = copy ? await readCapped(copy, deps.config.jsonBodyLimit) : "";
        const outcome = await handleRazorpayWebhook(deps, raw, request.headers.get("x-razorpay-signature") ?? undefined, request.headers.get("x-razorpay-event-id") ?? undefined);
        return ok(outcome, outcome.duplicate ? "Event already handled" : "Event handled");
      },
      { detail: { summary: "Razorpay webhook (public; X-Razorpay-Signature over the raw body; idempotent on the event id)", responses: envelopeResponses({ data: razorpayOutcomeDoc, errors: [400, 409] }) } },
    )
    .get("/plans", async () => ok(await offeredPlans(deps)), { jwt: "read", detail: { summary: "The plan catalogue (INR, amounts in paise)", responses: envelopeResponses({ data: plansDoc }) } })
    .get("/subscription", async ({ auth }) => ok(await subscriptionOf(deps, auth.workspaceId)), {
      jwt: "read",
      detail: { summary: "Plan, status, trialEndsAt, currentPeriodEnd, interval and usage against quotas", responses: envelopeResponses({ data: subscriptionDoc }) },
    })
    .post(
      "/checkout",
      async ({ auth, body, set }) => {
        set.status = 201;
        return ok(await checkout(deps, auth.workspaceId, body, auth.kind === "user" ? auth.userId : null), "Order created: complete the payment with Razorpay Checkout");
      },
      { jwt: "billing", body: checkoutBody, detail: { summary: "Start a payment for a plan and interval (Razorpay order); 409 when billing is manual", responses: envelopeResponses({ status: 201, data: checkoutDoc, errors: [409, 502] }) } },
    )
    .post("/verify", async ({ auth, body }) => ok(await verifyPayment(deps, auth.workspaceId, body), "Payment verified: plan active"), {
      jwt: "billing",
      body: verifyBody,
      detail: { summary: "Verify Razorpay Checkout's payment signature and activate the plan", responses: envelopeResponses({ data: subscriptionDoc, errors: [404, 409] }) },
    })
    .get(
      "/invoices",
      async ({ auth, query }) => {
        const { items, total } = await invoicesOf(deps, auth.workspaceId, query.page, query.limit);
        return paged(items, query.page, query.limit, total);
      },
      { jwt: "read", query: pageQuery, detail: { summary: "Paid periods (invoices), newest first", responses: envelopeResponses({ data: invoiceDoc, list: "page" }) } },
    );
}
