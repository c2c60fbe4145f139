import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { automationDoc, automationsDoc } from "./docs.ts";
import { automationParams, createAutomationBody, updateAutomationBody } from "./model.ts";
import * as service from "./service.ts";

/** Auto-replies (docs/automations.md): every member reads them, owners and admins manage them. */
export function automationRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get("/api/v1/automations", async ({ auth }) => ok(await service.listAutomations(deps, auth.workspaceId)), {
      jwt: "read",
      detail: { tags: ["automations"], summary: "List the workspace's auto-replies", responses: envelopeResponses({ data: automationsDoc }) },
    })
    .post(
      "/api/v1/automations",
      async ({ auth, body, set }) => {
        const created = await service.createAutomation(deps, auth.workspaceId, auth.kind === "user" ? auth.userId : null, body);
        set.status = 201;
        return ok(created, "Automation created");
      },
      {
        jwt: "manage",
        body: createAutomationBody,
        detail: {
        tags: ["automations"],
          summary: "Create an auto-reply (keyword, welcome or away trigger)",
          description: "At most one auto-reply answers an inbound message: keyword before away before welcome. A contact gets one answer of an automation per cooldownMinutes (default 60).",
          responses: envelopeResponses({ status: 201, data: automationDoc }),
        },
      },
    )
    .get("/api/v1/automations/:id", async ({ auth, params }) => ok(await service.getAutomation(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: automationParams,
      detail: { tags: ["automations"], summary: "Get one auto-reply", responses: envelopeResponses({ data: automationDoc }) },
    })
    .patch("/api/v1/automations/:id", async ({ auth, params, body }) => ok(await service.updateAutomation(deps, auth.workspaceId, params.id, body), "Automation updated"), {
      jwt: "manage",
      params: automationParams,
      body: updateAutomationBody,
      detail: { tags: ["automations"], summary: "Change an auto-reply", responses: envelopeResponses({ data: automationDoc }) },
    })
    .delete(
      "/api/v1/automations/:id",
      async ({ auth, params }) => {
        await service.deleteAutomation(deps, auth.workspaceId, params.id);
        return ok(undefined, "Automation deleted");
      },
      { jwt: "manage", params: automationParams, detail: { tags: ["automations"], summary: "Delete an auto-reply", responses: envelopeResponses({ data: null }) } },
    );
}
