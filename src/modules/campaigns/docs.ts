import { z } from "zod";
import { MESSAGE_TYPES } from "../messages/table.ts";
import { campaignAudience, campaignPacing, campaignSchedule } from "./model.ts";
import { CAMPAIGN_STATUSES, PAUSED_REASONS, RECIPIENT_STATUSES, SKIPPED_REASONS } from "./table.ts";

// Response schemas of the campaign routes, for the OpenAPI document only (answers are built by view.ts).

/** A zod schema as an OpenAPI 3.0 schema object. */
const schemaOf = (schema: z.ZodType, io: "input" | "output" = "output") =>
  z.toJSONSchema(schema, { target: "openapi-3.0", io, unrepresentable: "any" }) as Record<string, unknown> as { type: "object" };

const isoTime = z.string().describe("ISO 8601, UTC, with milliseconds");

export const statsSchema = z.object({
  total: z.number().int(),
  pending: z.number().int(),
  sent: z.number().int(),
  delivered: z.number().int(),
  read: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
});

export const campaignSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  pausedReason: z.enum(PAUSED_REASONS).nullable(),
  sessionIds: z.array(z.uuid()),
  message: z.object({ type: z.enum(MESSAGE_TYPES), body: z.string().optional(), mediaId: z.uuid().optional(), mediaUrl: z.string().optional(), filename: z.string().optional() }),
  audience: campaignAudience,
  schedule: campaignSchedule,
  pacing: campaignPacing,
  stats: statsSchema,
  waitingUntil: isoTime.nullable().describe("while running but every session waits for its daily cap or quiet hours: when sending goes on"),
  createdAt: isoTime,
  updatedAt: isoTime,
  startedAt: isoTime.nullable(),
  completedAt: isoTime.nullable(),
});

export const recipientSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid().nullable(),
  phone: z.string(),
  status: z.enum(RECIPIENT_STATUSES),
  skippedReason: z.enum(SKIPPED_REASONS).nullable(),
  messageId: z.uuid().nullable(),
  sessionId: z.uuid().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  sentAt: isoTime.nullable(),
});

const pagination = z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), totalPages: z.number().int() });

const error = {
  description: "Failure envelope { success: false, code, message, errors?, requestId }",
  content: {
    "application/json": {
      schema: schemaOf(
        z.object({ success: z.literal(false), code: z.string(), message: z.string(), errors: z.record(z.string(), z.string()).optional(), requestId: z.string() }),
      ),
    },
  },
};

function envelope(data: z.ZodType, paged = false) {
  const shape: Record<string, z.ZodType> = { success: z.literal(true), data, message: z.string().optional() };
  if (paged) shape.pagination = pagination;
  return { "application/json": { schema: schemaOf(z.object(shape)) } };
}

/** OpenAPI `responses` of a route answering one campaign (status 200 or 201) with the usual failures. */
export function campaignResponses(status: 200 | 201 = 200) {
  return { [status]: { description: "The campaign", content: envelope(campaignSchema) }, 400: error, 403: error, 404: error, 409: error };
}

export const listResponses = { 200: { description: "A page of campaigns", content: envelope(z.array(campaignSchema), true) }, 400: error };
export const recipientResponses = { 200: { description: "A page of recipients", content: envelope(z.array(recipientSchema), true) }, 400: error, 404: error };
export const deleteResponses = { 200: { description: "Deleted", content: envelope(z.undefined().optional()) }, 404: error, 409: error };
