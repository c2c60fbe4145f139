import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, paged } from "../../http/envelope.ts";
import { campaignResponses, deleteResponses, listResponses, recipientResponses } from "./docs.ts";
import { campaignListQuery, campaignParams, createCampaignBody, recipientListQuery, updateCampaignBody } from "./model.ts";
import { createCampaign, getCampaign, pageCampaignRecipients, pageCampaigns, removeCampaign, updateDraft } from "./service.ts";
import { cancelCampaign, pauseByUser, resumeCampaign, retryFailed, startCampaign } from "./transitions.ts";

/** Campaigns (docs/contacts-and-campaigns.md): owner and admin manage, every role reads; a plan feature. */
export function campaignRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .post(
      "/api/v1/campaigns",
      async ({ auth, body, set }) => {
        const created = await createCampaign(deps, auth.workspaceId, auth.kind === "user" ? auth.userId : auth.apiKeyId, body);
        set.status = 201;
        return ok(created, "Campaign created as a draft");
      },
      {
        jwt: "manage",
        body: createCampaignBody,
        detail: {
        tags: ["campaigns"],
          summary: "Create a campaign (201, draft)",
          description: "`message.body` may use {{name}}, {{phone}} and {{attributes.KEY}}, each with an optional default: {{name|friend}}. Free plan: 403 SUBSCRIPTION_INACTIVE.",
          responses: campaignResponses(201),
        },
      },
    )
    .get(
      "/api/v1/campaigns",
      async ({ auth, query }) => {
        const { data, total } = await pageCampaigns(deps, auth.workspaceId, query);
        return paged(data, query.page, query.limit, total);
      },
      { jwt: "read", query: campaignListQuery, detail: { tags: ["campaigns"], summary: "List campaigns, newest first (filter status)", responses: listResponses } },
    )
    .get("/api/v1/campaigns/:id", async ({ auth, params }) => ok(await getCampaign(deps, auth.workspaceId, params.id)), {
      jwt: "read",
      params: campaignParams,
      detail: { tags: ["campaigns"], summary: "Get a campaign with its stats", responses: campaignResponses() },
    })
    .patch("/api/v1/campaigns/:id", async ({ auth, params, body }) => ok(await updateDraft(deps, auth.workspaceId, params.id, body)), {
      jwt: "manage",
      params: campaignParams,
      body: updateCampaignBody,
      detail: { tags: ["campaigns"], summary: "Change a draft (409 once started); pacing fields merge", responses: campaignResponses() },
    })
    .delete(
      "/api/v1/campaigns/:id",
      async ({ auth, params }) => {
        await removeCampaign(deps, auth.workspaceId, params.id);
        return ok(undefined, "Campaign deleted");
      },
      { jwt: "manage", params: campaignParams, detail: { tags: ["campaigns"], summary: "Delete a draft, completed, cancelled or failed campaign", responses: deleteResponses } },
    )
    .post("/api/v1/campaigns/:id/start", async ({ auth, params }) => ok(await startCampaign(deps, auth.workspaceId, params.id), "Campaign started"), {
      jwt: "manage",
      params: campaignParams,
      detail: {
        tags: ["campaigns"],
        summary: "Start a draft: running, or scheduled while schedule.at is ahead (the audience is frozen now)",
        description: "A schedule that passed longer ago than maxLatenessMinutes pauses it with pausedReason missed_schedule. Free plan: 403 SUBSCRIPTION_INACTIVE.",
        responses: campaignResponses(),
      },
    })
    .post("/api/v1/campaigns/:id/pause", async ({ auth, params }) => ok(await pauseByUser(deps, auth.workspaceId, params.id), "Campaign paused"), {
      jwt: "manage",
      params: campaignParams,
      detail: { tags: ["campaigns"], summary: "Pause a running or scheduled campaign (pausedReason user_request)", responses: campaignResponses() },
    })
    .post("/api/v1/campaigns/:id/resume", async ({ auth, params }) => ok(await resumeCampaign(deps, auth.workspaceId, params.id), "Campaign resumed"), {
      jwt: "manage",
      params: campaignParams,
      detail: { tags: ["campaigns"], summary: "Resume a paused campaign (running, or scheduled while its time is ahead)", responses: campaignResponses() },
    })
    .post("/api/v1/campaigns/:id/cancel", async ({ auth, params }) => ok(await cancelCampaign(deps, auth.workspaceId, params.id), "Campaign cancelled"), {
      jwt: "manage",
      params: campaignParams,
      detail: { tags: ["campaigns"], summary: "Cancel (draft, scheduled, running, paused); pending recipients become skipped (cancelled)", responses: campaignResponses() },
    })
    .post("/api/v1/campaigns/:id/retry-failed", async ({ auth, params }) => ok(await retryFailed(deps, auth.workspaceId, params.id), "Failed recipients queued again"), {
      jwt: "manage",
      params: campaignParams,
      detail: { tags: ["campaigns"], summary: "Send again to failed recipients (completed or paused campaign)", responses: campaignResponses() },
    })
    .get(
      "/api/v1/campaigns/:id/recipients",
      async ({ auth, params, query }) => {
        const { data, total } = await pageCampaignRecipients(deps, auth.workspaceId, params.id, query);
        return paged(data, query.page, query.limit, total);
      },
      { jwt: "read", params: campaignParams, query: recipientListQuery, detail: { tags: ["campaigns"], summary: "Recipients of a campaign (filter status)", responses: recipientResponses } },
    );
}
