import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, pageQuery, paged } from "../../http/envelope.ts";
import { apiKeyParams, createApiKeyBody } from "./model.ts";
import { createApiKey, listKeys, revokeKey } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { apiKeyDoc, createdApiKeyDoc } from "./docs.ts";

/** /api/api-keys (docs/api.md): JWT, owner and admin. */
export function apiKeyRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .post(
      "/api/api-keys",
      async ({ auth, body, set }) => {
        set.status = 201;
        return ok(await createApiKey(deps, auth.workspaceId, body, auth.kind === "user" ? auth.userId : null), "Store the key now: it is not shown again");
      },
      { jwt: "manage", body: createApiKeyBody, detail: { tags: ["api-keys"], summary: "Create an API key (the key is shown once)", responses: envelopeResponses({ status: 201, data: createdApiKeyDoc }) } },
    )
    .get(
      "/api/api-keys",
      async ({ auth, query }) => {
        const { items, total } = await listKeys(deps, auth.workspaceId, query.page, query.limit);
        return paged(items, query.page, query.limit, total);
      },
      { jwt: "manage", query: pageQuery, detail: { tags: ["api-keys"], summary: "List API keys (prefix, name, createdAt, lastUsedAt, expiresAt)", responses: envelopeResponses({ data: apiKeyDoc, list: "page" }) } },
    )
    .delete(
      "/api/api-keys/:id",
      async ({ auth, params }) => {
        await revokeKey(deps, auth.workspaceId, params.id);
        return ok(undefined, "API key revoked");
      },
      { jwt: "manage", params: apiKeyParams, detail: { tags: ["api-keys"], summary: "Revoke an API key at once", responses: envelopeResponses({ data: null }) } },
    );
}
