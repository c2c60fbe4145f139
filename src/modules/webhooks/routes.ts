import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { WEBHOOK_EVENTS } from "../../events/bus.ts";
import { ok, paged } from "../../http/envelope.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { cursorPaged } from "../../http/cursor.ts";
import { createWebhookBody, deliveryParams, historyQuery, updateWebhookBody, webhookParams } from "./model.ts";
import * as service from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { createdWebhookDoc, eventNamesDoc, historyEntryDoc, retryResultDoc, secretDoc, testResultDoc, webhookDoc, webhooksDoc } from "./docs.ts";

/** The webhook routes (docs/webhooks.md). */
export function webhookRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/api/webhooks", tags: ["webhooks"] })
    .use(authGuard(deps))
    .get("/events", () => ok([...WEBHOOK_EVENTS]), {
      detail: { summary: "Subscribable event names (dotted aliases such as message.received are accepted too)", responses: envelopeResponses({ data: eventNamesDoc }) },
    })
    .get("", async ({ auth }) => ok(await service.listWebhooks(deps, auth.workspaceId)), {
      jwt: "read",
      detail: { summary: "List the workspace's webhooks", responses: envelopeResponses({ data: webhooksDoc }) },
    })
    .post(
      "",
      async ({ auth, body, set }) => {
        const created = await service.createWebhook(deps, auth.workspaceId, auth.kind === "user" ? auth.userId : null, body);
        set.status = 201;
        return ok(created, "Webhook created; the secret is shown only now");
      },
      { jwt: "manage", body: createWebhookBody, detail: { summary: "Create a webhook (needs a connected session; returns the secret once)", responses: envelopeResponses({ status: 201, data: createdWebhookDoc, errors: [409] }), description: "Every delivery to the URL is described by this operation's `delivery` callback: its body per event and its signature headers." } },
    )
    .get("/:id", async ({ auth, params }) => ok(await service.getWebhook(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: webhookParams,
      detail: { summary: "Get one webhook", responses: envelopeResponses({ data: webhookDoc }) },
    })
    .patch("/:id", async ({ auth, params, body }) => ok(await service.updateWebhook(deps, auth.workspaceId, params.id, body)), {
      jwt: "manage",
      params: webhookParams,
      body: updateWebhookBody,
      detail: { summary: "Change name, url, events or isActive", responses: envelopeResponses({ data: webhookDoc }) },
    })
    .delete(
      "/:id",
      async ({ auth, params }) => {
        await service.deleteWebhook(deps, auth.workspaceId, params.id);
        return ok(undefined, "Webhook deleted");
      },
      { jwt: "manage", params: webhookParams, detail: { summary: "Delete a webhook and its delivery history", responses: envelopeResponses({ data: null }) } },
    )
    .post("/:id/rotate-secret", async ({ auth, params }) => ok(await service.rotateSecret(deps, auth.workspaceId, params.id), "New secret; the old one no longer signs"), {
      jwt: "manage",
      params: webhookParams,
      detail: { summary: "Replace the signing secret (returned once)", responses: envelopeResponses({ data: secretDoc }) },
    })
    .get(
      "/:id/history",
      async ({ auth, params, query }) => {
        const h = await service.history(deps, auth.workspaceId, params.id, query);
        return h.cursor ? cursorPaged(h.entries, h.cursor) : paged(h.entries, query.page, query.limit, h.total);
      },
      {
        jwt: "read",
        params: webhookParams,
        query: historyQuery,
        detail: {
          summary: "Delivery history, newest first (page/limit or before/after cursors; filters status, event)",
          description:
            "With page/limit: pagination { page, limit, total, totalPages }. With before or after (one of them, a delivery id): " +
            "pagination { limit, hasMore, nextCursor (pass as before), prevCursor (pass as after) }, no total; page past 1 is refused.",
          responses: envelopeResponses({ data: historyEntryDoc, list: "page-or-cursor" }),
        },
      },
    )
    .post("/:id/test", async ({ auth, params }) => ok(await service.sendTest(deps, auth.workspaceId, params.id)), {
      jwt: "manage",
      params: webhookParams,
      detail: { summary: "Send a sample of the first subscribed event now (X-Webhook-Test: true)", responses: envelopeResponses({ data: testResultDoc }) },
    })
    .post(
      "/:id/deliveries/:deliveryId/retry",
      async ({ auth, params }) => ok(await service.retryDelivery(deps, auth.workspaceId, params.id, params.deliveryId)),
      { jwt: "manage", params: deliveryParams, detail: { summary: "Re-send a delivery now (same delivery id, next attempt number)", responses: envelopeResponses({ data: retryResultDoc, errors: [409] }) } },
    );
}
