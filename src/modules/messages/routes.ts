import type { AuthContext } from "../../auth/context.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { cursorPaged } from "../../http/cursor.ts";
import { messageIdParams, messageListQuery, sendBody, type SendBody } from "./model.ts";
import { acceptSend, getMessage, listMessages } from "./service.ts";
import { cancelScheduled } from "./scheduled.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { messageDoc, queuedMessageDoc } from "../docs/schemas.ts";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const SEND_DOC = {
  summary: "Send a message (202: queued; Idempotency-Key honoured for 24 h)",
  description:
    "Types text, image, document, audio, video. Media from `mediaUrl` (fetched by the server), `mediaId` (POST /api/v1/media) or `media` (base64) " +
    "with `mimeType` and `filename`. Caps: image 5 MB, audio and video 16 MB, document 100 MB. 502 CHATAPP_UNAVAILABLE when the session is not connected. " +
    "`quickReplyId` in place of `body`: a quick reply filled for the recipient's contact. `sendAt` (future, at most 30 days ahead) schedules the send: 202 with status scheduled, queued at that time; DELETE /api/v1/messages/{id} cancels it until then.",
  responses: envelopeResponses({ status: 202, data: queuedMessageDoc, errors: [404, 409, 502] }),
};

/** From the request, not Elysia's `headers` (a copy of them all, made only for routes that name it). */
const idempotencyKey = (request: Request) => request.headers.get("idempotency-key") ?? undefined;

/** Messages: send (JWT or API key), read one, list with filters and keyset cursors. */
export function messagesRoutes(deps: AppDeps) {
  const send = async (auth: AuthContext, body: SendBody, key: string | undefined, set: { status?: number | string; headers: Record<string, unknown> }) => {
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw errors.validation({ "Idempotency-Key": "must be 1 to 255 printable ASCII characters" });
    }
    const actorId = auth.kind === "user" ? auth.userId : auth.apiKeyId;
    const { data, replayed } = await acceptSend(deps, { workspaceId: auth.workspaceId, actorId }, body, key);
    set.status = 202;
    if (replayed) set.headers["idempotent-replayed"] = "true";
    return ok(data, "Message queued");
  };
  return (app: RoutedApp) => app
    .post("/api/v1/messages/send", ({ auth, body, request, set }) => send(auth, body, idempotencyKey(request), set), {
      jwtOrApiKey: "messaging",
      body: sendBody,
      detail: { tags: ["messages"], ...SEND_DOC }, // a copy each: the guard adds its own security to the detail
    })
    .post("/api/external/messages/send", ({ auth, body, request, set }) => send(auth, body, idempotencyKey(request), set), {
      apiKey: "messaging",
      body: sendBody,
      detail: { tags: ["messages"], ...SEND_DOC },
    })
    .get("/api/external/messages/:id", async ({ auth, params }) => ok(await getMessage(deps, auth.workspaceId, params.id, "external")), {
      apiKey: "read",
      params: messageIdParams,
      detail: { tags: ["messages"], summary: "Get a message and its status (API key)", responses: envelopeResponses({ data: messageDoc }) },
    })
    .delete(
      "/api/v1/messages/:id",
      async ({ auth, params }) => {
        await cancelScheduled(deps, auth.workspaceId, params.id);
        return ok(await getMessage(deps, auth.workspaceId, params.id), "Scheduled message cancelled");
      },
      {
        jwt: "messaging",
        params: messageIdParams,
        detail: {
        tags: ["messages"],
          summary: "Cancel a scheduled message (status cancelled); 409 once it is queued or sent",
          responses: envelopeResponses({ data: messageDoc, errors: [409] }),
        },
      },
    )
    .get("/api/v1/messages/:id", async ({ auth, params }) => ok(await getMessage(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: messageIdParams,
      detail: { tags: ["messages"], summary: "Get a message and its status", responses: envelopeResponses({ data: messageDoc }) },
    })
    .get(
      "/api/v1/messages",
      async ({ auth, query }) => {
        const { data, pagination } = await listMessages(deps, auth.workspaceId, query);
        return cursorPaged(data, pagination);
      },
      {
        jwt: "read",
        query: messageListQuery,
        detail: {
        tags: ["messages"],
          summary: "List messages, newest first (filters; keyset cursors before/after)",
          description: "pagination: { limit, hasMore, nextCursor (pass as before), prevCursor (pass as after) }. No page numbers past 1 and no total.",
          responses: envelopeResponses({ data: messageDoc, list: "cursor" }),
        },
      },
    );
}
