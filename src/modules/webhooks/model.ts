import { z } from "zod";
import { WEBHOOK_EVENTS, type WebhookEvent } from "../../events/bus.ts";
import { pageQuery } from "../../http/envelope.ts";
import { DELIVERY_STATUSES } from "./table.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

const CANONICAL = new Set<string>(WEBHOOK_EVENTS);

/** `message.received`, `MESSAGE_RECEIVED` and `message_received` all mean message_received; null when unknown. */
export function canonicalEvent(name: string): WebhookEvent | null {
  const c = name.trim().toLowerCase().replace(/\./g, "_");
  return CANONICAL.has(c) ? (c as WebhookEvent) : null;
}

const eventName = lazySchema(() =>
  z.string().transform((s, ctx) => {
    const c = canonicalEvent(s);
    if (!c) {
      ctx.addIssue({ code: "custom", message: `unknown event "${s}"; see GET /api/webhooks/events` });
      return z.NEVER;
    }
    return c;
  }),
);

/** Stored canonical and without duplicates, in the order given. */
const eventList = lazySchema(() =>
  z
    .array(eventName)
    .min(1, "subscribe to at least one event")
    .max(WEBHOOK_EVENTS.length * 2)
    .transform((list) => [...new Set(list)]),
);

const name = lazySchema(() => z.string().trim().min(1, "is required").max(100));
const url = lazySchema(() => z.string().trim().min(1, "is required").max(2048));

export const createWebhookBody = lazySchema(() => z.object({ name, url, events: eventList }));
export type CreateWebhookInput = z.infer<typeof createWebhookBody>;

export const updateWebhookBody = lazySchema(() =>
  z
    .object({ name: name.optional(), url: url.optional(), events: eventList.optional(), isActive: z.boolean().optional() })
    .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "give at least one of name, url, events, isActive", path: ["body"] }),
);
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;

export const webhookParams = lazySchema(() => z.object({ id: z.uuid("must be a UUID") }));
export const deliveryParams = lazySchema(() => z.object({ id: z.uuid("must be a UUID"), deliveryId: z.uuid("must be a UUID") }));

export const historyQuery = lazySchema(() =>
  pageQuery
    .extend({
      status: z.enum(DELIVERY_STATUSES).optional(),
      event: eventName.optional(),
      /** keyset cursors: delivery ids (time-ordered); one at a time, and no page number past 1 with them */
      before: z.uuid("must be a delivery id").optional(),
      after: z.uuid("must be a delivery id").optional(),
    })
    .superRefine((q, ctx) => {
      if (q.before && q.after) ctx.addIssue({ code: "custom", path: ["after"], message: "cannot be combined with before" });
      if ((q.before || q.after) && q.page > 1) {
        ctx.addIssue({ code: "custom", path: ["page"], message: "cannot be combined with a cursor (before/after); continue with before=pagination.nextCursor" });
      }
    }),
);
export type HistoryQuery = z.infer<typeof historyQuery>;

/** A webhook as the API shows it (never the secret). */
export const webhookOut = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    isActive: z.boolean(),
    disabledReason: z.enum(["gone", "failing"]).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type WebhookOut = z.infer<typeof webhookOut>;

/** A delivery history entry (docs/webhooks.md). */
export const historyEntryOut = lazySchema(() =>
  z.object({
    id: z.string(),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    responseStatus: z.number().int().nullable(),
    deliveredAt: z.string().nullable(),
    attempts: z.number().int(),
    durationMs: z.number().int().nullable(),
    error: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    responseBody: z.string().nullable(),
    isTest: z.boolean(),
    createdAt: z.string(),
  }),
);
export type HistoryEntryOut = z.infer<typeof historyEntryOut>;
