import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { ok, paged } from "../../http/envelope.ts";
import { contactIdParams, contactListQuery } from "./model.ts";
import { getContact, pageContacts } from "./service.ts";

/** Read-only contacts API (contacts are created by inbound messages). */
export function contactsRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/api/v1/contacts", tags: ["contacts"] })
    .use(authGuard(deps))
    .get(
      "",
      ({ auth, query }) => {
        const { data, total } = pageContacts(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      { jwt: "read", query: contactListQuery, detail: { summary: "List contacts (newest first; search by phone or name)" } },
    )
    .get("/:id", ({ auth, params }) => ok(getContact(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: contactIdParams,
      detail: { summary: "Get a contact" },
    });
}
