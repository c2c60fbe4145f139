import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, paged } from "../../http/envelope.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { campaignStatsDoc, dayStatsDoc } from "./docs.ts";
import { campaignAnalyticsQuery, MAX_RANGE_DAYS, messageAnalyticsQuery } from "./model.ts";
import { campaignAnalytics, messageAnalytics } from "./service.ts";

/** Read-only figures of the workspace (docs/analytics.md); every member may read them. */
export function analyticsRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .get("/api/v1/analytics/messages", async ({ auth, query }) => ok(await messageAnalytics(deps, auth.workspaceId, query)), {
      jwt: "read",
      query: messageAnalyticsQuery,
      detail: {
        tags: ["analytics"],
        summary: "Messages per day: sent, delivered, read, failed, received and the median first response",
        description: `from and to are calendar days (YYYY-MM-DD, both included, at most ${MAX_RANGE_DAYS} days; default the last 30 days) in \`timezone\` (IANA; default the workspace's time zone, set with PATCH /api/workspace, itself UTC unless changed). Outbound messages count on the day they were made. Every day of the range is listed, oldest first.`,
        responses: envelopeResponses({ data: dayStatsDoc, errors: [404] }),
      },
    })
    .get(
      "/api/v1/analytics/campaigns",
      async ({ auth, query }) => {
        const { data, total } = await campaignAnalytics(deps, auth.workspaceId, query.page, query.limit);
        return paged(data, query.page, query.limit, total);
      },
      {
        jwt: "read",
        query: campaignAnalyticsQuery,
        detail: { tags: ["analytics"], summary: "Campaigns with their delivered and read rates, newest first", responses: envelopeResponses({ data: campaignStatsDoc, list: "page" }) },
      },
    );
}
