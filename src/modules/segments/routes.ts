import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { ok, paged } from "../../http/envelope.ts";
import { responses } from "../contacts/docs.ts";
import { createSegmentBody, previewBody, previewSchema, segmentIdParams, segmentListQuery, segmentSchema, updateSegmentBody } from "./model.ts";
import { createSegment, deleteSegment, getSegment, pageSegments, previewSegment, updateSegment } from "./service.ts";

/**
 * Segments (docs/contacts-and-campaigns.md): saved contact filters with a live count. The role table (docs/team-and-billing.md) lists no row for segments; they
 * are contacts data, so they follow contacts: owner, admin and agent write, everyone reads.
 */
export function segmentRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/api/v1/segments", tags: ["segments"] })
    .use(authGuard(deps))
    .get(
      "",
      async ({ auth, query }) => {
        const { data, total } = await pageSegments(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      { jwt: "read", query: segmentListQuery, detail: { summary: "List segments, newest first, each with its live count", responses: responses(200, segmentSchema, { paged: true }) } },
    )
    .post(
      "",
      async ({ auth, body, set }) => {
        const s = await createSegment(deps, auth.workspaceId, body);
        set.status = 201;
        return ok(s);
      },
      { jwt: "messaging", body: createSegmentBody, detail: { summary: "Save a filter as a segment (name unique in the workspace: 409)", responses: responses(201, segmentSchema, { description: "Created", errors: [409] }) } },
    )
    .post("/preview", async ({ auth, body }) => ok(await previewSegment(deps, auth.workspaceId, body.filter)), {
      jwt: "read",
      body: previewBody,
      detail: { summary: "What a filter selects now: count of opted-in matching contacts and a sample of up to 10", responses: responses(200, previewSchema) },
    })
    .get("/:id", async ({ auth, params }) => ok(await getSegment(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: segmentIdParams,
      detail: { summary: "Get a segment with its live count", responses: responses(200, segmentSchema) },
    })
    .patch("/:id", async ({ auth, params, body }) => ok(await updateSegment(deps, auth.workspaceId, params.id, body)), {
      jwt: "messaging",
      params: segmentIdParams,
      body: updateSegmentBody,
      detail: { summary: "Rename a segment or replace its filter", responses: responses(200, segmentSchema, { errors: [409] }) },
    })
    .delete(
      "/:id",
      async ({ auth, params }) => {
        await deleteSegment(deps, auth.workspaceId, params.id);
        return ok(undefined, "Segment deleted");
      },
      { jwt: "messaging", params: segmentIdParams, detail: { summary: "Delete a segment", responses: responses(200, null) } },
    );
}
