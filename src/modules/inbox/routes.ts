import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, paged } from "../../http/envelope.ts";
import { cursorPaged } from "../../http/cursor.ts";
import { cursorQuery } from "../messages/model.ts";
import { addNote, threadPage } from "./notes.ts";
import { searchMessages } from "./search.ts";
import { assignBody, conversationIdParams, conversationListQuery, conversationPatchBody, noteBody, searchQuery } from "./model.ts";
import { assignConversation, getConversation, pageConversations, patchConversation, readConversation, requireConversation } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { conversationDoc, noteDoc, searchHitDoc, threadItemDoc } from "./docs.ts";

/** The inbox (docs/inbox.md): conversations per (session, contact), and search. Agents reply through POST /api/v1/messages/send. */
export function inboxRoutes(deps: AppDeps) {
  // a plugin function: the app uses the groups itself (an instance around them would register each route once more)
  return (app: RoutedApp) => app.use(conversationRoutes(deps)).use(searchRoutes(deps));
}

function searchRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get(
      "/api/v1/inbox/search",
      async ({ auth, query }) => {
        const { data, pagination } = await searchMessages(deps, auth.workspaceId, query);
        return cursorPaged(data, pagination);
      },
      {
        jwt: "read",
        query: searchQuery,
        detail: {
        tags: ["inbox"],
          summary: "Search the workspace's messages by words of their text, newest first, each with its conversation (keyset cursors)",
          description: "q: words the text must all hold (whole words, any case). pagination: { limit, hasMore, nextCursor (pass as before), prevCursor (pass as after) }.",
          responses: envelopeResponses({ data: searchHitDoc, list: "cursor" }),
        },
      },
    );
}

function conversationRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get(
      "/api/v1/inbox/conversations",
      async ({ auth, query }) => {
        const r = await pageConversations(deps, auth.workspaceId, auth.kind === "user" ? auth.userId : null, query);
        if (r.cursor) return cursorPaged(r.data, r.cursor);
        return paged(r.data, query.page, query.limit, r.total!);
      },
      {
        jwt: "read",
        query: conversationListQuery,
        detail: {
        tags: ["inbox"],
          summary: "List conversations (status, labels, last message, unread count, assignee, session), most recent first",
          description:
            "Filters: status, assignee (me, none or a user id), label, sessionId, needsReply=true (the last message is inbound), snoozed (true: snoozed now), q (part of the contact's name or phone), unread. " +
            "Numbered pages answer { page, limit, total, totalPages }; with before or after (a conversation's cursor, or a page's nextCursor or prevCursor) the answer is a keyset page { limit, hasMore, nextCursor, prevCursor } without a total.",
          responses: envelopeResponses({ data: conversationDoc, list: "page-or-cursor" }),
        },
      },
    )
    .patch(
      "/api/v1/inbox/conversations/:id",
      async ({ auth, params, body }) => ok(await patchConversation(deps, auth.workspaceId, params.id, body), "Conversation updated"),
      {
        jwt: "messaging",
        params: conversationIdParams,
        body: conversationPatchBody,
        detail: {
        tags: ["inbox"],
          summary: "Change a conversation's status, snooze, labels or assignee",
          description: "Each field is optional (at least one). labels replaces the labels; snoozedUntil (future) or null; assigneeId a member who may send messages, or null. Emits conversation_updated.",
          responses: envelopeResponses({ data: conversationDoc }),
        },
      },
    )
    .get("/api/v1/inbox/conversations/:id", async ({ auth, params }) => ok(await getConversation(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: conversationIdParams,
      detail: { tags: ["inbox"], summary: "Get a conversation", responses: envelopeResponses({ data: conversationDoc }) },
    })
    .get(
      "/api/v1/inbox/conversations/:id/messages",
      async ({ auth, params, query }) => {
        await requireConversation(deps, auth.workspaceId, params.id);
        const { data, pagination } = await threadPage(deps, auth.workspaceId, params.id, query);
        return cursorPaged(data, pagination);
      },
      { jwt: "read", params: conversationIdParams, query: cursorQuery, detail: {
        tags: ["inbox"],
          summary: "The thread of a conversation: its messages and internal notes (type note), newest first (keyset cursors)",
          description: "pagination: { limit, hasMore, nextCursor (pass as before), prevCursor (pass as after) }. No page numbers past 1 and no total.",
          responses: envelopeResponses({ data: threadItemDoc, list: "cursor" }),
        } },
    )
    .post(
      "/api/v1/inbox/conversations/:id/notes",
      async ({ auth, params, body, set }) => {
        set.status = 201;
        return ok(await addNote(deps, auth.workspaceId, params.id, auth.kind === "user" ? auth.userId : null, body.body), "Note added");
      },
      {
        jwt: "messaging",
        params: conversationIdParams,
        body: noteBody,
        detail: {
        tags: ["inbox"],
          summary: "Add an internal note to a conversation's thread (never sent, never in a webhook)",
          responses: envelopeResponses({ status: 201, data: noteDoc }),
        },
      },
    )
    .post("/api/v1/inbox/conversations/:id/read", async ({ auth, params }) => ok(await readConversation(deps, auth.workspaceId, params.id), "Conversation marked read"), {
      jwt: "messaging",
      params: conversationIdParams,
      detail: { tags: ["inbox"], summary: "Mark a conversation read", responses: envelopeResponses({ data: conversationDoc }) },
    })
    .put("/api/v1/inbox/conversations/:id/assign", async ({ auth, params, body }) => ok(await assignConversation(deps, auth.workspaceId, params.id, body.userId)), {
      jwt: "messaging",
      params: conversationIdParams,
      body: assignBody,
      detail: { tags: ["inbox"], summary: "Assign a conversation to a member (userId null unassigns)", responses: envelopeResponses({ data: conversationDoc }) },
    });
}
