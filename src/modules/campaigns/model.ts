import { z } from "zod";
import { pageQuery } from "../../http/envelope.ts";
import { segmentFilter } from "../segments/filter.ts";
import { MESSAGE_TYPES } from "../messages/table.ts";
import { isTimeZone } from "./pacing.ts";
import { CAMPAIGN_STATUSES, RECIPIENT_STATUSES } from "./table.ts";
import { variableErrors } from "./variables.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
export const MAX_CONTACT_IDS = 10_000;

/** message (docs/contacts-and-campaigns.md): as a send (docs/messages.md), with variables in `body`. */
export const campaignMessage = lazySchema(() =>
  z
    .object({
      type: z.enum(MESSAGE_TYPES).default("text"),
      body: z.string().max(4096).optional(),
      mediaId: z.uuid().optional(),
      mediaUrl: z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048).optional(),
      filename: z.string().min(1).max(255).optional(),
    })
    .superRefine((v, ctx) => {
      for (const problem of variableErrors(v.body ?? "").slice(0, 1)) ctx.addIssue({ code: "custom", path: ["body"], message: problem });
      if (v.type === "text") {
        if (!v.body?.trim()) ctx.addIssue({ code: "custom", path: ["body"], message: "is required for text messages" });
        for (const k of ["mediaId", "mediaUrl"] as const) if (v[k] !== undefined) ctx.addIssue({ code: "custom", path: [k], message: "is only for media messages" });
        return;
      }
      if (v.mediaId === undefined && v.mediaUrl === undefined) ctx.addIssue({ code: "custom", path: ["mediaId"], message: `mediaId or mediaUrl is required for ${v.type} messages` });
      if (v.mediaId !== undefined && v.mediaUrl !== undefined) ctx.addIssue({ code: "custom", path: ["mediaUrl"], message: "give only one of mediaId, mediaUrl" });
    }),
);
export type CampaignMessage = z.infer<typeof campaignMessage>;

/** audience (docs/contacts-and-campaigns.md): exactly one of segmentId, filter, contactIds. */
export const campaignAudience = lazySchema(() =>
  z
    .object({
      segmentId: z.uuid().optional(),
      filter: segmentFilter.optional(),
      contactIds: z.array(z.uuid()).min(1).max(MAX_CONTACT_IDS).optional(),
    })
    .strict()
    .refine((a) => [a.segmentId, a.filter, a.contactIds].filter((x) => x !== undefined).length === 1, {
      message: "give exactly one of segmentId, filter, contactIds",
    }),
);
export type CampaignAudience = z.infer<typeof campaignAudience>;

export const campaignSchedule = lazySchema(() =>
  z
    .object({
      at: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time with an offset, e.g. 2026-05-01T09:00:00+05:30" }),
      maxLatenessMinutes: z.number().int().min(1).max(10_080).default(60),
    })
    .nullable(),
);

export const quietHours = lazySchema(() =>
  z
    .object({
      start: z.string().regex(HHMM, "must be HH:MM (24 h)"),
      end: z.string().regex(HHMM, "must be HH:MM (24 h)"),
      timezone: z.string().min(1).max(64).refine(isTimeZone, "is not a known IANA time zone"),
    })
    .refine((q) => q.start !== q.end, { path: ["end"], message: "must differ from start" })
    .nullable(),
);

const pacingFields = lazySchema(() => ({
  perMinute: z.number().int().min(1).max(600),
  jitterPercent: z.number().int().min(0).max(100),
  dailyCapPerSession: z.number().int().min(1).max(1_000_000),
  warmup: z.boolean(),
  quietHours,
}));

export const campaignPacing = lazySchema(() =>
  z.object({
    perMinute: pacingFields.perMinute.default(20),
    jitterPercent: pacingFields.jitterPercent.default(30),
    dailyCapPerSession: pacingFields.dailyCapPerSession.default(1000),
    warmup: pacingFields.warmup.default(true),
    quietHours: quietHours.default(null),
  }),
);

/** PATCH: only the pacing fields given change. */
const pacingPatch = lazySchema(() =>
  z.object({
    perMinute: pacingFields.perMinute.optional(),
    jitterPercent: pacingFields.jitterPercent.optional(),
    dailyCapPerSession: pacingFields.dailyCapPerSession.optional(),
    warmup: pacingFields.warmup.optional(),
    quietHours: quietHours.optional(),
  }),
);

const sessionIds = lazySchema(() =>
  z
    .array(z.uuid())
    .min(1)
    .max(50)
    .refine((ids) => new Set(ids).size === ids.length, "must not repeat a session"),
);

/** POST /api/v1/campaigns */
export const createCampaignBody = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1).max(120),
    sessionIds,
    message: campaignMessage,
    audience: campaignAudience,
    schedule: campaignSchedule.default(null),
    pacing: campaignPacing.default(campaignPacing.parse({})),
  }),
);
export type CreateCampaignBody = z.infer<typeof createCampaignBody>;

/** PATCH /api/v1/campaigns/{id} (draft only): any field of create; pacing fields merge. */
export const updateCampaignBody = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1).max(120).optional(),
      sessionIds: sessionIds.optional(),
      message: campaignMessage.optional(),
      audience: campaignAudience.optional(),
      schedule: campaignSchedule.optional(),
      pacing: pacingPatch.optional(),
    })
    .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "give at least one field to change" }),
);
export type UpdateCampaignBody = z.infer<typeof updateCampaignBody>;

export const campaignParams = lazySchema(() => z.object({ id: z.uuid() }));

export const campaignListQuery = lazySchema(() => pageQuery.extend({ status: z.enum(CAMPAIGN_STATUSES).optional() }));
export const recipientListQuery = lazySchema(() => pageQuery.extend({ status: z.enum(RECIPIENT_STATUSES).optional() }));
