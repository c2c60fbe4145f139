import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import type { SimControl } from "../../network/sim/control.ts";
import { sessionIdParams } from "../sessions/model.ts";
import { createGroupBody, createSimGroup, groupDoc } from "./groups.ts";

/** POST /api/sim/sessions/{id}/groups. */
export function simGroupRoutes(deps: AppDeps, sim: SimControl) {
  return (app: RoutedApp) => app
    .post(
      "/api/sim/sessions/:id/groups",
      async ({ auth, params, body, set }) => {
        const group = await createSimGroup(deps, sim, auth.workspaceId, params.id, body.name, body.participants);
        set.status = 201;
        return ok(group, "Group created on the sim network");
      },
      {
        jwt: "manage",
        params: sessionIdParams,
        body: createGroupBody,
        detail: { summary: "Sim: create a group chat the session is in", tags: ["sim"], responses: envelopeResponses({ status: 201, data: groupDoc, errors: [409] }) },
      },
    );
}
