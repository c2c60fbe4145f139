import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { updateWorkspaceBody } from "./model.ts";
import { changeWorkspace, getWorkspace } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { workspaceDoc } from "./docs.ts";

/** /api/workspace: the caller's own workspace (there is no route to another one). */
export function workspaceRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get("/api/workspace", async ({ auth }) => ok(await getWorkspace(deps, auth.workspaceId)), { jwt: "read", detail: { tags: ["workspace"], summary: "The caller's workspace", responses: envelopeResponses({ data: workspaceDoc }) } })
    .patch("/api/workspace", async ({ auth, body }) => ok(await changeWorkspace(deps, auth.workspaceId, body), "Workspace updated"), {
      jwt: "team",
      body: updateWorkspaceBody,
      detail: { tags: ["workspace"], summary: "Rename the workspace, require a second factor of every member, or set the opt-out/opt-in keywords (owner, admin)", responses: envelopeResponses({ data: workspaceDoc, errors: [409] }) },
    });
}
