import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { ok, paged } from "../../http/envelope.ts";
import { cursorPaged } from "../../http/cursor.ts";
import { cursorQuery } from "../messages/model.ts";
import { listMessages } from "../messages/service.ts";
import { assignBody, conversationIdParams, conversationListQuery } from "./model.ts";
import { assignConversation, getConversation, pageConversations, readConversation, requireConversation } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { messageDoc } from "../docs/schemas.ts";
import { conversationDoc } from "./docs.ts";

/** The inbox: conversations per (session, contact). Agents reply through POST /api/v1/messages/send. */
export function inboxRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/api/v1/inbox/conversations", tags: ["inbox"] })
    .use(authGuard(deps))
    .get(
      "",
      async ({ auth, query }) => {
        const { data, total } = await pageConversations(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      { jwt: "read", query: conversationListQuery, detail: { summary: "List conversations (last message, unread count, assignee), most recent first", responses: envelopeResponses({ data: conversationDoc, list: "page" }) } },
    )
    .get("/:id", async ({ auth, params }) => ok(await getConversation(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: conversationIdParams,
      detail: { summary: "Get a conversation", responses: envelopeResponses({ data: conversationDoc }) },
    })
    .get(
      "/:id/messages",
      async ({ auth, params, query }) => {
        await requireConversation(deps, auth.workspaceId, params.id);
        const { data, pagination } = await listMessages(deps, auth.workspaceId, { ...query, conversationId: params.id });
        return cursorPaged(data, pagination);
      },
      { jwt: "read", params: conversationIdParams, query: cursorQuery, detail: {
          summary: "Messages of a conversation, newest first (keyset cursors)",
          description: "pagination: { limit, hasMore, nextCursor (pass as before), prevCursor (pass as after) }. No page numbers past 1 and no total.",
          responses: envelopeResponses({ data: messageDoc, list: "cursor" }),
        } },
    )
    .post("/:id/read", async ({ auth, params }) => ok(await readConversation(deps, auth.workspaceId, params.id), "Conversation marked read"), {
      jwt: "messaging",
      params: conversationIdParams,
      detail: { summary: "Mark a conversation read", responses: envelopeResponses({ data: conversationDoc }) },
    })
    .put("/:id/assign", async ({ auth, params, body }) => ok(await assignConversation(deps, auth.workspaceId, params.id, body.userId)), {
      jwt: "messaging",
      params: conversationIdParams,
      body: assignBody,
      detail: { summary: "Assign a conversation to a member (userId null unassigns)", responses: envelopeResponses({ data: conversationDoc }) },
    });
}
