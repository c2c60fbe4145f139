import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, paged } from "../../http/envelope.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { createQuickReplyBody, quickReplyIdParams, quickReplyListQuery, quickReplySchema, updateQuickReplyBody } from "./model.ts";
import { createQuickReply, deleteQuickReply, getQuickReply, pageQuickReplies, updateQuickReply } from "./service.ts";

/**
 * Quick replies (docs/inbox.md): every member reads them (agents send them with
 * `quickReplyId`); owners and admins manage them.
 */
export function quickRepliesRoutes(deps: AppDeps) {
  const doc = () => quickReplySchema;
  return (app: RoutedApp) => app
    .get(
      "/api/v1/quick-replies",
      async ({ auth, query }) => {
        const { data, total } = await pageQuickReplies(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      { jwt: "read", query: quickReplyListQuery, detail: { tags: ["inbox"], summary: "List quick replies by shortcut (prefix: those starting with it)", responses: envelopeResponses({ data: doc, list: "page" }) } },
    )
    .get("/api/v1/quick-replies/:id", async ({ auth, params }) => ok(await getQuickReply(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: quickReplyIdParams,
      detail: { tags: ["inbox"], summary: "Get a quick reply", responses: envelopeResponses({ data: doc }) },
    })
    .post(
      "/api/v1/quick-replies",
      async ({ auth, body, set }) => {
        set.status = 201;
        return ok(await createQuickReply(deps, auth.workspaceId, auth.kind === "user" ? auth.userId : null, body), "Quick reply created");
      },
      {
        jwt: "manage",
        body: createQuickReplyBody,
        detail: {
        tags: ["inbox"],
          summary: "Create a quick reply {shortcut, body} (variables as in campaigns)",
          responses: envelopeResponses({ status: 201, data: doc, errors: [409] }),
        },
      },
    )
    .patch("/api/v1/quick-replies/:id", async ({ auth, params, body }) => ok(await updateQuickReply(deps, auth.workspaceId, params.id, body), "Quick reply updated"), {
      jwt: "manage",
      params: quickReplyIdParams,
      body: updateQuickReplyBody,
      detail: { tags: ["inbox"], summary: "Change a quick reply's shortcut or body", responses: envelopeResponses({ data: doc, errors: [409] }) },
    })
    .delete(
      "/api/v1/quick-replies/:id",
      async ({ auth, params }) => {
        await deleteQuickReply(deps, auth.workspaceId, params.id);
        return ok(undefined, "Quick reply deleted");
      },
      { jwt: "manage", params: quickReplyIdParams, detail: { tags: ["inbox"], summary: "Delete a quick reply", responses: envelopeResponses({ data: null }) } },
    );
}
