import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { cursorPaged } from "../../http/cursor.ts";
import { messageListQuery } from "./model.ts";
import { listMessages } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { messageDoc } from "../docs/schemas.ts";

/** Message history for API keys (docs/api.md: keys work only under /api/external): the dashboard list's filters and cursors. */
export function externalMessagesRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get(
      "/api/external/messages",
      async ({ auth, query }) => {
        // media links point at /api/external/media, where the same key can fetch them
        const { data, pagination } = await listMessages(deps, auth.workspaceId, query, "external");
        return cursorPaged(data, pagination);
      },
      {
        apiKey: "read",
        query: messageListQuery,
        detail: {
        tags: ["external"],
          summary: "List messages, newest first (API key; same filters and keyset cursors as GET /api/v1/messages)",
          description: "pagination: { limit, hasMore, nextCursor (pass as before), prevCursor (pass as after) }.",
          responses: envelopeResponses({ data: messageDoc, list: "cursor" }),
        },
      },
    );
}
