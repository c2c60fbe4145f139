import type { AppDeps } from "../../deps.ts";
import { WEBHOOK_EVENTS } from "../../events/bus.ts";
import { ok, paged } from "../../http/envelope.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { cursorPaged } from "../../http/cursor.ts";
import { createWebhookBody, deliveryParams, historyQuery, updateWebhookBody, webhookParams } from "./model.ts";
import * as service from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { createdWebhookDoc, eventNamesDoc, historyEntryDoc, retryResultDoc, secretDoc, testResultDoc, webhookDoc, webhooksDoc } from "./docs.ts";

/** The webhook routes (docs/webhooks.md). */
export function webhookRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get("/api/webhooks/events", () => ok([...WEBHOOK_EVENTS]), {
      detail: { tags: ["webhooks"], summary: "Subscribable event names (dotted aliases such as message.received are accepted too)", responses: envelopeResponses({ data: eventNamesDoc }) },
    })
    .get("/api/webhooks", async ({ auth }) => ok(await service.listWebhooks(deps, auth.workspaceId)), {
      jwt: "read",
      detail: { tags: ["webhooks"], summary: "List the workspace's webhooks", responses: envelopeResponses({ data: webhooksDoc }) },
    })
    .post(
      "/api/webhooks",
      async ({ auth, body, set }) => {
        const created = await service.createWebhook(deps, auth.workspaceId, auth.kind === "user" ? auth.userId : null, body);
        set.status = 201;
        return ok(created, "Webhook created; the secret is shown only now");
      },
      { jwt: "manage", body: createWebhookBody, detail: { tags: ["webhooks"], summary: "Create a webhook (needs a connected session; returns the secret once)", responses: envelopeResponses({ status: 201, data: createdWebhookDoc, errors: [409] }), description: "Every delivery to the URL is described by this operation's `delivery` callback: its body per event and its signature headers." } },
    )
    .get("/api/webhooks/:id", async ({ auth, params }) => ok(await service.getWebhook(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: webhookParams,
      detail: { tags: ["webhooks"], summary: "Get one webhook", responses: envelopeResponses({ data: webhookDoc }) },
    })
    .patch("/api/webhooks/:id", async ({ auth, params, body }) => ok(await service.updateWebhook(deps, auth.workspaceId, params.id, body)), {
      jwt: "manage",
      params: webhookParams,
      body: updateWebhookBody,
      detail: { tags: ["webhooks"], summary: "Change name, url, events or isActive", responses: envelopeResponses({ data: webhookDoc }) },
    })
    .delete(
      "/api/webhooks/:id",
      async ({ auth, params }) => {
        await service.deleteWebhook(deps, auth.workspaceId, params.id);
        return ok(undefined, "Webhook deleted");
      },
      { jwt: "manage", params: webhookParams, detail: { tags: ["webhooks"], summary: "Delete a webhook and its delivery history", responses: envelopeResponses({ data: null }) } },
    )
    .post("/api/webhooks/:id/rotate-secret", async ({ auth, params }) => ok(await service.rotateSecret(deps, auth.workspaceId, params.id), "New secret; the old one no longer signs"), {
      jwt: "manage",
      params: webhookParams,
      detail: { tags: ["webhooks"], summary: "Replace the signing secret (returned once)", responses: envelopeResponses({ data: secretDoc }) },
    })
    .get(
      "/api/webhooks/:id/history",
      async ({ auth, params, query }) => {
        const h = await service.history(deps, auth.workspaceId, params.id, query);
        return h.cursor ? cursorPaged(h.entries, h.cursor) : paged(h.entries, query.page, query.limit, h.total);
      },
      {
        jwt: "read",
        params: webhookParams,
        query: historyQuery,
        detail: {
        tags: ["webhooks"],
          summary: "Delivery history, newest first (page/limit or before/after cursors; filters status, event)",
          description:
            "With page/limit: pagination { page, limit, total, totalPages }. With before or after (one of them, a delivery id): " +
            "pagination { limit, hasMore, nextCursor (pass as before), prevCursor (pass as after) }, no total; page past 1 is refused.",
          responses: envelopeResponses({ data: historyEntryDoc, list: "page-or-cursor" }),
        },
      },
    )
    .post("/api/webhooks/:id/test", async ({ auth, params }) => ok(await service.sendTest(deps, auth.workspaceId, params.id)), {
      jwt: "manage",
      params: webhookParams,
      detail: { tags: ["webhooks"], summary: "Send a sample of the first subscribed event now (X-Webhook-Test: true)", responses: envelopeResponses({ data: testResultDoc }) },
    })
    .post(
      "/api/webhooks/:id/deliveries/:deliveryId/retry",
      async ({ auth, params }) => ok(await service.retryDelivery(deps, auth.workspaceId, params.id, params.deliveryId)),
      { jwt: "manage", params: deliveryParams, detail: { tags: ["webhooks"], summary: "Re-send a delivery now (same delivery id, next attempt number)", responses: envelopeResponses({ data: retryResultDoc, errors: [409] }) } },
    );
}
