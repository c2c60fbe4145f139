import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { ok } from "../../http/envelope.ts";
import { updateWorkspaceBody } from "./model.ts";
import { changeWorkspace, getWorkspace } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { workspaceDoc } from "./docs.ts";

/** /api/workspace: the caller's own workspace (there is no route to another one). */
export function workspaceRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/api/workspace", tags: ["workspace"] })
    .use(authGuard(deps))
    .get("", async ({ auth }) => ok(await getWorkspace(deps, auth.workspaceId)), { jwt: "read", detail: { summary: "The caller's workspace", responses: envelopeResponses({ data: workspaceDoc }) } })
    .patch("", async ({ auth, body }) => ok(await changeWorkspace(deps, auth.workspaceId, body), "Workspace updated"), {
      jwt: "team",
      body: updateWorkspaceBody,
      detail: { summary: "Rename the workspace, require a second factor of every member, or set the opt-out/opt-in keywords (owner, admin)", responses: envelopeResponses({ data: workspaceDoc, errors: [409] }) },
    });
}
