import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { ok, paged } from "../../http/envelope.ts";
import { contactIdParams, contactListQuery, contactSchema } from "./model.ts";
import { getContact, pageContacts } from "./service.ts";
import { responses } from "./docs.ts";

/** Contacts for API keys, read-only (docs/api.md: keys work only under /api/external). */
export function externalContactsRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/api/external/contacts", tags: ["external"] })
    .use(authGuard(deps))
    .get(
      "",
      async ({ auth, query }) => {
        const { data, total } = await pageContacts(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      { apiKey: "read", query: contactListQuery, detail: { summary: "List contacts (API key; same filters as GET /api/v1/contacts)", responses: responses(200, contactSchema, { paged: true }) } },
    )
    .get("/:id", async ({ auth, params }) => ok(await getContact(deps, auth.workspaceId, params.id)), {
      apiKey: "read",
      params: contactIdParams,
      detail: { summary: "Get a contact (API key)", responses: responses(200, contactSchema) },
    });
}
