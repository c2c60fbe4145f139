import type { AppDeps } from "../../deps.ts";
import { readCapped } from "../../http/core-plugin.ts";
import { ok, pageQuery, paged } from "../../http/envelope.ts";
import { keepRawBody, rawBodyOf } from "../../http/raw-body.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { checkoutBody, verifyBody } from "./model.ts";
import { checkout, invoicesOf, offeredPlans, subscriptionOf, verifyPayment } from "./service.ts";
import { handleRazorpayWebhook } from "./webhook.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { checkoutDoc, invoiceDoc, plansDoc, razorpayOutcomeDoc, subscriptionDoc } from "./docs.ts";

const WEBHOOK_PATH = "/api/billing/webhooks/razorpay";
const tags = ["billing"];

/** /api/billing: plans, subscription, Razorpay checkout and verification, invoices, webhook. */
export function billingRoutes(deps: AppDeps) {
  // the signature covers the exact bytes Razorpay sent: the body parser keeps this path's text
  keepRawBody(WEBHOOK_PATH);
  return (app: RoutedApp) => app
    .post(
      WEBHOOK_PATH,
      async ({ request }) => {
        // a body the parser did not read (none of the types it reads) is read here, with the same cap
        const raw = rawBodyOf(request) ?? (request.bodyUsed ? "" : await readCapped(request, deps.config.jsonBodyLimit));
        const outcome = await handleRazorpayWebhook(deps, raw, request.headers.get("x-razorpay-signature") ?? undefined, request.headers.get("x-razorpay-event-id") ?? undefined);
        return ok(outcome, outcome.duplicate ? "Event already handled" : "Event handled");
      },
      { detail: { tags, summary: "Razorpay webhook (public; X-Razorpay-Signature over the raw body; idempotent on the event id)", responses: envelopeResponses({ data: razorpayOutcomeDoc, errors: [400, 409] }) } },
    )
    .get("/api/billing/plans", async () => ok(await offeredPlans(deps)), { jwt: "read", detail: { tags, summary: "The plan catalogue (INR, amounts in paise)", responses: envelopeResponses({ data: plansDoc }) } })
    .get("/api/billing/subscription", async ({ auth }) => ok(await subscriptionOf(deps, auth.workspaceId)), {
      jwt: "read",
      detail: { tags, summary: "Plan, status, trialEndsAt, currentPeriodEnd, interval and usage against quotas", responses: envelopeResponses({ data: subscriptionDoc }) },
    })
    .post(
      "/api/billing/checkout",
      async ({ auth, body, set }) => {
        set.status = 201;
        return ok(await checkout(deps, auth.workspaceId, body, auth.kind === "user" ? auth.userId : null), "Order created: complete the payment with Razorpay Checkout");
      },
      { jwt: "billing", body: checkoutBody, detail: { tags, summary: "Start a payment for a plan and interval (Razorpay order); 409 when billing is manual", responses: envelopeResponses({ status: 201, data: checkoutDoc, errors: [409, 502] }) } },
    )
    .post("/api/billing/verify", async ({ auth, body }) => ok(await verifyPayment(deps, auth.workspaceId, body), "Payment verified: plan active"), {
      jwt: "billing",
      body: verifyBody,
      detail: { tags, summary: "Verify Razorpay Checkout's payment signature and activate the plan", responses: envelopeResponses({ data: subscriptionDoc, errors: [404, 409] }) },
    })
    .get(
      "/api/billing/invoices",
      async ({ auth, query }) => {
        const { items, total } = await invoicesOf(deps, auth.workspaceId, query.page, query.limit);
        return paged(items, query.page, query.limit, total);
      },
      { jwt: "read", query: pageQuery, detail: { tags, summary: "Paid periods (invoices), newest first", responses: envelopeResponses({ data: invoiceDoc, list: "page" }) } },
    );
}
