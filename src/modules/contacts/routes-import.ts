import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { csvResponse, responses } from "./docs.ts";
import { exportContacts } from "./export.ts";
import { getImport, queueImport } from "./import-service.ts";
import { contactFilterQuery, importBody, importIdParams, importSchema } from "./model.ts";
import { z } from "zod";

/** CSV import (a durable job) and streamed CSV export (docs/contacts-and-campaigns.md). */
export function contactImportRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .post(
      "/api/v1/contacts/import",
      async ({ auth, body, set }) => {
        const queued = await queueImport(deps, auth.workspaceId, body.file);
        set.status = 202;
        return ok(queued, "Import queued");
      },
      {
        jwt: "messaging",
        body: importBody,
        detail: {
        tags: ["contacts"],
          summary: "Import contacts from a CSV (multipart field `file`): a job; follow it with GET /api/v1/contacts/imports/{id}",
          description:
            "UTF-8 (BOM allowed), comma or semicolon (from the header line), quoted fields. Header row with `phone`; optional `name`, " +
            "`tags` (separated by ; or |), `optedOut`; every other column is an attribute. Rows are checked one by one; good rows " +
            "create a contact or merge into the existing one (an import never clears optedOut).",
          responses: responses(202, () => z.object({ id: z.uuid(), status: z.literal("queued") }), { description: "Queued" }),
        },
      },
    )
    .get("/api/v1/contacts/imports/:id", async ({ auth, params }) => ok(await getImport(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: importIdParams,
      detail: { tags: ["contacts"], summary: "Progress and report of an import (the first 1,000 rejected rows)", responses: responses(200, importSchema) },
    })
    .get(
      "/api/v1/contacts/export",
      async ({ auth, query }) =>
        new Response(await exportContacts(deps, auth.workspaceId, query), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": 'attachment; filename="contacts.csv"',
            "cache-control": "no-store",
          },
        }),
      {
        jwt: "read",
        query: contactFilterQuery,
        detail: { tags: ["contacts"], summary: "Export contacts as CSV, streamed (the list's filters; columns phone, name, tags, optedOut, createdAt, then one per attribute key)", responses: csvResponse("CSV") },
      },
    );
}
