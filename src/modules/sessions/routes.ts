import type { AppDeps } from "../../deps.ts";
import type { AuthContext } from "../../auth/context.ts";
import { guardLoaded } from "../../http/auth-guard.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, pageQuery, paged } from "../../http/envelope.ts";
import type { SessionManager } from "./manager.ts";
import { createSessionBody, pairingCodeBody, patchSessionBody, sessionIdParams } from "./model.ts";
import { createSession, pageOfSessions, patchSettings, removeSession, SESSION_STATUS_TABLES, sessionOf, sessionStatuses } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { externalSessionsDoc } from "../docs/schemas.ts";
import { connectDoc, pairingCodeDoc, qrDoc, sessionDoc } from "./docs.ts";

const tags = ["sessions"];

type SessionStatuses = Awaited<ReturnType<typeof sessionStatuses>>;

/** The spec's session routes (JWT) plus the rules' (docs/sessions.md) QR, pairing code and DELETE, and the API-key listing. */
export function sessionRoutes(deps: AppDeps, manager: SessionManager) {
  return (app: RoutedApp) => app
    .get(
      "/api/v1/chatapp",
      async ({ auth, query }) => {
        const { data, total } = await pageOfSessions(deps, auth.workspaceId, query.page, query.limit);
        return paged(data, query.page, query.limit, total);
      },
      { jwt: "read", query: pageQuery, detail: { summary: "List the workspace's sessions", tags, responses: envelopeResponses({ data: sessionDoc, list: "page" }) } },
    )
    .post(
      "/api/v1/chatapp",
      async ({ auth, body, set }) => {
        const session = await createSession(deps, auth.workspaceId, body.name);
        set.status = 201;
        return ok(session, "Session created");
      },
      { jwt: "manage", body: createSessionBody, detail: { summary: "Create a session (disconnected)", tags, responses: envelopeResponses({ status: 201, data: sessionDoc, errors: [409] }) } },
    )
    .get("/api/v1/chatapp/:id", async ({ auth, params }) => ok(await sessionOf(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: sessionIdParams,
      detail: { summary: "One session", tags, responses: envelopeResponses({ data: sessionDoc }) },
    })
    .patch(
      "/api/v1/chatapp/:id",
      async ({ auth, params, body }) => ok(await patchSettings(deps, auth.workspaceId, params.id, body.settings), "Session settings saved"),
      {
        jwt: "manage",
        params: sessionIdParams,
        body: patchSessionBody,
        detail: { summary: "Change a session's settings (groups: keep its group messages)", tags, responses: envelopeResponses({ data: sessionDoc }) },
      },
    )
    .delete(
      "/api/v1/chatapp/:id",
      async ({ auth, params }) => {
        await removeSession(manager, auth.workspaceId, params.id);
        return ok(undefined, "Session deleted");
      },
      { jwt: "manage", params: sessionIdParams, detail: { summary: "Delete a session (unlinks it first)", tags, responses: envelopeResponses({ data: null }) } },
    )
    .post(
      "/api/v1/chatapp/:id/connect",
      async ({ auth, params }) => {
        const row = await manager.connect(auth.workspaceId, params.id);
        const message =
          row.status === "connected"
            ? "Session connected"
            : "Scan the QR code with the phone (GET /api/v1/chatapp/{id}/qr or the session_qr event)";
        return ok({ id: row.id, status: row.status, phoneNumber: row.phoneNumber, message }, message);
      },
      { jwt: "manage", params: sessionIdParams, detail: { summary: "Start linking (QR) or reconnect a session", tags, responses: envelopeResponses({ data: connectDoc, errors: [409, 502] }) } },
    )
    .get("/api/v1/chatapp/:id/status", async ({ auth, params }) => ok(await sessionOf(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: sessionIdParams,
      detail: { summary: "Status of a session", tags, responses: envelopeResponses({ data: sessionDoc }) },
    })
    .get("/api/v1/chatapp/:id/qr", async ({ auth, params }) => ok(await manager.qr(auth.workspaceId, params.id)), {
      // a QR links a phone to the workspace: only those who may connect sessions see it (docs/team-and-billing.md)
      jwt: "manage",
      params: sessionIdParams,
      detail: { summary: "The current QR code while the session is qr_pending", tags, responses: envelopeResponses({ data: qrDoc, errors: [409] }) },
    })
    .post(
      "/api/v1/chatapp/:id/pairing-code",
      async ({ auth, params, body }) => ok({ code: await manager.pairingCode(auth.workspaceId, params.id, body.phoneNumber) }),
      {
        jwt: "manage",
        params: sessionIdParams,
        body: pairingCodeBody,
        detail: { summary: "Link by phone number: an 8-character code to type on the phone", tags, responses: envelopeResponses({ data: pairingCodeDoc, errors: [409, 502] }) },
      },
    )
    .post(
      "/api/v1/chatapp/:id/disconnect",
      async ({ auth, params }) => {
        await manager.disconnect(auth.workspaceId, params.id);
        return ok(await sessionOf(deps, auth.workspaceId, params.id), "Session disconnected");
      },
      { jwt: "manage", params: sessionIdParams, detail: { summary: "Disconnect and unlink a session", tags, responses: envelopeResponses({ data: sessionDoc, errors: [409] }) } },
    )
    // ok()'s envelope written out: a handler returning a call (`return f(`) is awaited by Elysia's compiled route (see authGuard)
    .get("/api/external/sessions", async ({ auth, request }) => {
      return { success: true as const, data: guardLoaded<SessionStatuses>(request) ?? (await sessionStatuses(deps, auth.workspaceId)) };
    }, {
      // read with the key, in one read transaction: the listing is hot (on PostgreSQL kept in the
      // read cache until the sessions table changes on any node)
      apiKey: { permission: "read", load: (auth: AuthContext) => sessionStatuses(deps, auth.workspaceId), reads: SESSION_STATUS_TABLES },
      detail: { summary: "Sessions of the key's workspace (id, name, status, phoneNumber)", tags: ["external"], responses: envelopeResponses({ data: externalSessionsDoc }) },
    });
}
