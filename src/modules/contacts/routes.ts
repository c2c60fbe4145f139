import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, paged } from "../../http/envelope.ts";
import { responses } from "./docs.ts";
import { contactImportRoutes } from "./routes-import.ts";
import { contactIdParams, contactListQuery, contactSchema, createContactBody, updateContactBody } from "./model.ts";
import { createContact, deleteContact, getContact, pageContacts, updateContact } from "./service.ts";

/** Contacts CRUD (docs/contacts-and-campaigns.md). Writes need `messaging` (owner, admin, agent: docs/team-and-billing.md), reads `read`. */
export function contactsRoutes(deps: AppDeps) {
  // a plugin function: the app uses the groups itself (an instance around them would register each route once more)
  return (app: RoutedApp) => app.use(contactImportRoutes(deps)).use(contactCrudRoutes(deps));
}

function contactCrudRoutes(deps: AppDeps) {
  return (app: RoutedApp) =>
    app
    .get(
      "/api/v1/contacts",
      async ({ auth, query }) => {
        const { data, total } = await pageContacts(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      {
        jwt: "read",
        query: contactListQuery,
        detail: { tags: ["contacts"], summary: "List contacts, newest first (search on phone or names; `tag` repeatable, any of; optedOut)", responses: responses(200, contactSchema, { paged: true }) },
      },
    )
    .post(
      "/api/v1/contacts",
      async ({ auth, body, set }) => {
        const c = await createContact(deps, auth.workspaceId, body);
        set.status = 201;
        return ok(c);
      },
      {
        jwt: "messaging",
        body: createContactBody,
        detail: {
        tags: ["contacts"],
          summary: "Create a contact (phone: a leading +, spaces and dashes are dropped; 409 when it exists; 403 LIMIT_EXCEEDED past the plan)",
          responses: responses(201, contactSchema, { description: "Created", errors: [409] }),
        },
      },
    )
    .get("/api/v1/contacts/:id", async ({ auth, params }) => ok(await getContact(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: contactIdParams,
      detail: { tags: ["contacts"], summary: "Get a contact", responses: responses(200, contactSchema) },
    })
    .patch("/api/v1/contacts/:id", async ({ auth, params, body }) => ok(await updateContact(deps, auth.workspaceId, params.id, body)), {
      jwt: "messaging",
      params: contactIdParams,
      body: updateContactBody,
      detail: { tags: ["contacts"], summary: "Change name, tags (replaced), attributes (replaced) or optedOut", responses: responses(200, contactSchema) },
    })
    .delete(
      "/api/v1/contacts/:id",
      async ({ auth, params }) => {
        await deleteContact(deps, auth.workspaceId, params.id);
        return ok(undefined, "Contact deleted");
      },
      { jwt: "messaging", params: contactIdParams, detail: { tags: ["contacts"], summary: "Delete a contact", responses: responses(200, null) } },
    );
}
