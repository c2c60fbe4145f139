import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { sessionIdParams } from "../sessions/model.ts";
import { groupsDoc } from "./docs.ts";
import { listSessionGroups } from "./service.ts";

const summary = "The groups a session is in (asked of the network while connected, else the last known)";

/** The groups of a session (docs/groups.md): the dashboard route (JWT) and the same under /api/external (API key). */
export function groupRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get("/api/v1/chatapp/:id/groups", async ({ auth, params }) => ok(await listSessionGroups(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: sessionIdParams,
      detail: { summary, tags: ["sessions"], responses: envelopeResponses({ data: groupsDoc, errors: [404, 502] }) },
    })
    .get("/api/external/chatapp/:id/groups", async ({ auth, params }) => ok(await listSessionGroups(deps, auth.workspaceId, params.id)), {
      apiKey: "read",
      params: sessionIdParams,
      detail: { summary: `${summary} (API key)`, tags: ["external"], responses: envelopeResponses({ data: groupsDoc, errors: [404, 502] }) },
    });
}
