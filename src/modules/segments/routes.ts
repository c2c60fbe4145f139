import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, paged } from "../../http/envelope.ts";
import { responses } from "../contacts/docs.ts";
import { createSegmentBody, previewBody, previewSchema, segmentIdParams, segmentListQuery, segmentSchema, updateSegmentBody } from "./model.ts";
import { createSegment, deleteSegment, getSegment, pageSegments, previewSegment, updateSegment } from "./service.ts";

/**
 * Segments (docs/contacts-and-campaigns.md): saved contact filters with a live count. The role table (docs/team-and-billing.md) lists no row for segments; they
 * are contacts data, so they follow contacts: owner, admin and agent write, everyone reads.
 */
export function segmentRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get(
      "/api/v1/segments",
      async ({ auth, query }) => {
        const { data, total } = await pageSegments(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      { jwt: "read", query: segmentListQuery, detail: { tags: ["segments"], summary: "List segments, newest first, each with its live count", responses: responses(200, segmentSchema, { paged: true }) } },
    )
    .post(
      "/api/v1/segments",
      async ({ auth, body, set }) => {
        const s = await createSegment(deps, auth.workspaceId, body);
        set.status = 201;
        return ok(s);
      },
      { jwt: "messaging", body: createSegmentBody, detail: { tags: ["segments"], summary: "Save a filter as a segment (name unique in the workspace: 409)", responses: responses(201, segmentSchema, { description: "Created", errors: [409] }) } },
    )
    .post("/api/v1/segments/preview", async ({ auth, body }) => ok(await previewSegment(deps, auth.workspaceId, body.filter)), {
      jwt: "read",
      body: previewBody,
      detail: { tags: ["segments"], summary: "What a filter selects now: count of opted-in matching contacts and a sample of up to 10", responses: responses(200, previewSchema) },
    })
    .get("/api/v1/segments/:id", async ({ auth, params }) => ok(await getSegment(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: segmentIdParams,
      detail: { tags: ["segments"], summary: "Get a segment with its live count", responses: responses(200, segmentSchema) },
    })
    .patch("/api/v1/segments/:id", async ({ auth, params, body }) => ok(await updateSegment(deps, auth.workspaceId, params.id, body)), {
      jwt: "messaging",
      params: segmentIdParams,
      body: updateSegmentBody,
      detail: { tags: ["segments"], summary: "Rename a segment or replace its filter", responses: responses(200, segmentSchema, { errors: [409] }) },
    })
    .delete(
      "/api/v1/segments/:id",
      async ({ auth, params }) => {
        await deleteSegment(deps, auth.workspaceId, params.id);
        return ok(undefined, "Segment deleted");
      },
      { jwt: "messaging", params: segmentIdParams, detail: { tags: ["segments"], summary: "Delete a segment", responses: responses(200, null) } },
    );
}
