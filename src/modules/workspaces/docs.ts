import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { SUBSCRIPTION_STATUSES } from "../billing/quota.ts";

// Response `data` shape of the workspace routes, for the OpenAPI document only (docSchema).

export const workspaceDoc = docSchema(() =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    planId: z.string(),
    subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES),
    require2fa: z.boolean(),
    optOutKeywords: z.array(z.string()),
    optInKeywords: z.array(z.string()),
    timezone: z.string().describe("IANA time zone of the workspace's hours (auto-reply away hours)"),
    createdAt: z.string().describe("ISO 8601, UTC, milliseconds"),
  }),
);
