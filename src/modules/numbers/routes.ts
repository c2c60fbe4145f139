import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { sessionIdParams } from "../sessions/model.ts";
import { numberStatusesDoc } from "./docs.ts";
import { checkBody } from "./model.ts";
import { checkNumbers } from "./service.ts";

const summary = "Whether phone numbers are on the network (at most 50; answers cached a day), asked through a connected session";

/** Is a number on the network: the dashboard route (JWT) and the same under /api/external (API key). */
export function numberRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .post("/api/v1/chatapp/:id/check", async ({ auth, params, body }) => ok(await checkNumbers(deps, auth.workspaceId, params.id, body.phones)), {
      jwt: "messaging",
      params: sessionIdParams,
      body: checkBody,
      detail: { summary, tags: ["sessions"], responses: envelopeResponses({ data: numberStatusesDoc, errors: [404, 502] }) },
    })
    .post("/api/external/chatapp/:id/check", async ({ auth, params, body }) => ok(await checkNumbers(deps, auth.workspaceId, params.id, body.phones)), {
      apiKey: "messaging",
      params: sessionIdParams,
      body: checkBody,
      detail: { summary: `${summary} (API key)`, tags: ["external"], responses: envelopeResponses({ data: numberStatusesDoc, errors: [404, 502] }) },
    });
}
