import { WAITING_CODES } from "./pacing.ts";
import { z } from "zod";
import { docSchema, envelopeResponses } from "../../http/openapi.ts";
import { MESSAGE_TYPES } from "../messages/table.ts";
import { campaignAudience, campaignPacing, campaignSchedule } from "./model.ts";
import { CAMPAIGN_STATUSES, PAUSED_REASONS, RECIPIENT_STATUSES, SKIPPED_REASONS } from "./table.ts";

// Response schemas of the campaign routes, for the OpenAPI document only (answers are built by
// view.ts); built when the document is first asked for (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, with milliseconds");

export const statsSchema = docSchema(() =>
  z.object({
    total: z.number().int(),
    pending: z.number().int(),
    sent: z.number().int(),
    delivered: z.number().int(),
    read: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
  }),
);

export const campaignSchema = docSchema(() =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    pausedReason: z.enum(PAUSED_REASONS).nullable(),
    sessionIds: z.array(z.uuid()),
    message: z.object({ type: z.enum(MESSAGE_TYPES), body: z.string().optional(), mediaId: z.uuid().optional(), mediaUrl: z.string().optional(), filename: z.string().optional() }),
    audience: campaignAudience,
    schedule: campaignSchedule,
    pacing: campaignPacing,
    stats: statsSchema(),
    waitingUntil: isoTime().nullable().describe("while running but every session waits for its daily cap or quiet hours: when sending goes on"),
    waitingReason: z
      .object({
        code: z.enum(WAITING_CODES).describe("quiet_hours, warmup (a new number's daily allowance), daily_cap (pacing.dailyCapPerSession), reconnecting"),
        message: z.string().describe("the reason in words, for people"),
        allowance: z.number().int().nullable().describe("campaign messages each number may send today (warmup, daily_cap)"),
      })
      .nullable()
      .describe("why a running campaign sends nothing now; null while it sends"),
    createdAt: isoTime(),
    updatedAt: isoTime(),
    startedAt: isoTime().nullable(),
    completedAt: isoTime().nullable(),
  }),
);

export const recipientSchema = docSchema(() =>
  z.object({
    id: z.uuid(),
    contactId: z.uuid().nullable(),
    phone: z.string(),
    status: z.enum(RECIPIENT_STATUSES),
    skippedReason: z.enum(SKIPPED_REASONS).nullable(),
    messageId: z.uuid().nullable(),
    sessionId: z.uuid().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    sentAt: isoTime().nullable(),
  }),
);

/** OpenAPI `responses` of a route answering one campaign (status 200 or 201); the docs builder adds the inferred failures. */
export function campaignResponses(status: 200 | 201 = 200) {
  return envelopeResponses({ status, data: campaignSchema, description: "The campaign", errors: [404, 409] });
}

export const listResponses = envelopeResponses({ data: campaignSchema, list: "page", description: "A page of campaigns" });
export const recipientResponses = envelopeResponses({ data: recipientSchema, list: "page", description: "A page of recipients" });
export const deleteResponses = envelopeResponses({ data: null, description: "Deleted", errors: [409] });
