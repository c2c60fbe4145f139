import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { CAMPAIGN_STATUSES } from "../campaigns/table.ts";

// Response `data` shapes of the analytics routes, for the OpenAPI document only (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, milliseconds");
const rate = () => z.number().nullable().describe("share of `sent`, 0..1 (4 decimals); null before anything was sent");

export const dayStatsDoc = docSchema(() =>
  z.array(z.object({
    date: z.string().describe("YYYY-MM-DD in the asked time zone"),
    sent: z.number().int().describe("outbound messages made this day that reached the network"),
    delivered: z.number().int().describe("of those, delivered (or read)"),
    read: z.number().int(),
    failed: z.number().int().describe("outbound messages made this day that failed"),
    received: z.number().int().describe("inbound messages"),
    firstResponseSecondsMedian: z.number().int().nullable().describe("median wait from an inbound message to the first reply; null when none was answered"),
  })),
);

export const campaignStatsDoc = docSchema(() =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    total: z.number().int(),
    pending: z.number().int(),
    sent: z.number().int().describe("recipients whose message reached the network"),
    delivered: z.number().int().describe("of those, delivered or read"),
    read: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    deliveredRate: rate(),
    readRate: rate(),
    createdAt: isoTime(),
    startedAt: isoTime().nullable(),
    completedAt: isoTime().nullable(),
  }),
);
