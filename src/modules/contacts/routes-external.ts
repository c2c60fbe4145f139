import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, paged } from "../../http/envelope.ts";
import { contactIdParams, contactListQuery, contactSchema } from "./model.ts";
import { getContact, pageContacts } from "./service.ts";
import { responses } from "./docs.ts";

/** Contacts for API keys, read-only (docs/api.md: keys work only under /api/external). */
export function externalContactsRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get(
      "/api/external/contacts",
      async ({ auth, query }) => {
        const { data, total } = await pageContacts(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      { apiKey: "read", query: contactListQuery, detail: { tags: ["external"], summary: "List contacts (API key; same filters as GET /api/v1/contacts)", responses: responses(200, contactSchema, { paged: true }) } },
    )
    .get("/api/external/contacts/:id", async ({ auth, params }) => ok(await getContact(deps, auth.workspaceId, params.id)), {
      apiKey: "read",
      params: contactIdParams,
      detail: { tags: ["external"], summary: "Get a contact (API key)", responses: responses(200, contactSchema) },
    });
}
