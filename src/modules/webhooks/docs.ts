import { z } from "zod";
import { WEBHOOK_EVENTS, type WebhookEvent } from "../../events/bus.ts";
import { docSchema, zodToOpenApi } from "../../http/openapi.ts";
import { CAMPAIGN_STATUSES, PAUSED_REASONS } from "../campaigns/table.ts";
import { STORED_MESSAGE_TYPES } from "../messages/table.ts";
import { historyEntryOut, webhookOut } from "./model.ts";
import { sampleData } from "./samples.ts";

// The webhook routes' response shapes and the deliveries Parley POSTs to a webhook's URL, for
// the OpenAPI document only; made when the document is first asked for (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, milliseconds");

export const webhookDoc = docSchema(() => webhookOut);
export const webhooksDoc = docSchema(() => z.array(webhookOut));
export const historyEntryDoc = docSchema(() => historyEntryOut);
export const eventNamesDoc = docSchema(() => z.array(z.enum(WEBHOOK_EVENTS)));
export const createdWebhookDoc = docSchema(() => webhookOut.extend({ secret: z.string().describe("64 hex characters; signs every delivery; shown only now") }));
export const secretDoc = docSchema(() => z.object({ id: z.uuid(), secret: z.string().describe("the new secret, shown only now") }));
export const testResultDoc = docSchema(() =>
  z.object({ delivered: z.boolean(), responseStatus: z.number().int().describe("the receiver's status; 0 when it did not answer"), deliveryId: z.uuid() }),
);
export const retryResultDoc = docSchema(() =>
  z.object({
    id: z.uuid().describe("the delivery id (the same on every attempt)"),
    status: z.enum(["pending", "retrying", "success", "failed"]),
    attempts: z.number().int(),
    responseStatus: z.number().int().describe("0 when the receiver did not answer"),
    delivered: z.boolean(),
    error: z.string().nullable(),
  }),
);

const uuid = () => z.uuid();
const phone = () => z.string().describe("digits with the country code, no plus");

/** The `data` of each event, as the deliveries (and the WebSocket) carry it. */
const eventData: Record<WebhookEvent, () => z.ZodType> = {
  message_received: () =>
    z.object({
      sessionId: uuid(),
      from: phone(),
      messageId: uuid(),
      groupId: z.string().optional().describe("a group chat's message: the group's id (…@g.us)"),
      participant: z.string().optional().describe("a group's message: the member who wrote it (from holds it too)"),
      type: z.enum(STORED_MESSAGE_TYPES),
      text: z.string().describe("the text, or the caption of media (empty when none)"),
      content: z.string().describe("the same value as text"),
      mediaUrl: z.string().nullable().describe("download with an API key (GET /api/external/media/{id}); null for text"),
      mediaId: z.uuid().nullable(),
      mimeType: z.string().nullable(),
      filename: z.string().nullable(),
      pushName: z.string().nullable().describe("the sender's profile name"),
      timestamp: isoTime(),
      payload: z.record(z.string(), z.unknown()).optional().describe("reactions, locations and contact cards only: their fields"),
    }),
  message_sent: () => z.object({ sessionId: uuid(), to: phone(), messageId: uuid(), groupId: z.string().optional().describe("a group chat's message: the group's id (…@g.us)"), automationId: uuid().optional().describe("an auto-reply only: the automation that sent it") }),
  message_delivered: () => z.object({ sessionId: uuid(), messageId: uuid(), deliveredAt: isoTime(), groupId: z.string().optional().describe("a group chat's message: the group's id (…@g.us)") }),
  message_read: () => z.object({ sessionId: uuid(), messageId: uuid(), readAt: isoTime(), groupId: z.string().optional().describe("a group chat's message: the group's id (…@g.us)") }),
  message_failed: () =>
    z.object({ sessionId: uuid(), messageId: uuid(), to: phone(), error: z.object({ code: z.string(), message: z.string() }), groupId: z.string().optional().describe("a group chat's message: the group's id (…@g.us)"), automationId: uuid().optional().describe("an auto-reply only: the automation that sent it") }),
  campaign_progress: () =>
    z.object({
      campaignId: uuid(),
      status: z.enum(CAMPAIGN_STATUSES),
      pausedReason: z.enum(PAUSED_REASONS).nullable(),
      total: z.number().int(),
      pending: z.number().int(),
      sent: z.number().int(),
      delivered: z.number().int(),
      read: z.number().int(),
      failed: z.number().int(),
      skipped: z.number().int(),
    }),
  session_connected: () => z.object({ sessionId: uuid(), phone: z.string().describe("with a leading plus"), status: z.literal("connected") }),
  session_disconnected: () => z.object({ sessionId: uuid(), reason: z.string().describe("logged_out, connection_lost, user_request, ...") }),
};

/** `WebhookPayload_message_received`, ...: the name of an event's delivery body in components.schemas. */
export const payloadSchemaName = (event: WebhookEvent) => `WebhookPayload_${event}`;

const EXAMPLE_TIME = new Date("2026-01-15T09:30:00.000Z");

/** The delivery body of every event, `{ event, timestamp, data }`, keyed by component name. */
export function webhookPayloadSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const event of WEBHOOK_EVENTS) {
    const schema = z.object({ event: z.literal(event), timestamp: isoTime().describe("when the event happened"), data: eventData[event]() });
    // the example is the body of a test delivery, at a fixed time (the document stays byte-stable)
    const example = { event, timestamp: EXAMPLE_TIME.toISOString(), data: sampleData(event, EXAMPLE_TIME) };
    out[payloadSchemaName(event)] = { ...zodToOpenApi(schema, "output"), title: event, example };
  }
  return out;
}

const header = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }, required = true) => ({ name, in: "header", required, description, schema });

/**
 * The delivery Parley POSTs to a webhook's URL, as an OpenAPI callback of POST /api/webhooks:
 * the body of each event and the signature headers.
 */
export function webhookDeliveryCallback(): Record<string, unknown> {
  const ref = (event: WebhookEvent) => ({ $ref: `#/components/schemas/${payloadSchemaName(event)}` });
  return {
    "{$request.body#/url}": {
      post: {
        operationId: "webhookDelivery",
        summary: "A delivery to the webhook's URL (at least once; retried with backoff until a 2xx)",
        description:
          "Verify `X-Webhook-Signature` (hex HMAC-SHA256 of the raw body keyed with the secret) or the Standard Webhooks " +
          "headers (`webhook-signature`: `v1,` + base64 HMAC-SHA256 over `webhook-id.webhook-timestamp.body`, keyed with the " +
          "UTF-8 bytes of the hex secret). The delivery id is the same on every attempt: use it to drop duplicates.",
        security: [],
        parameters: [
          header("X-Webhook-Event", "the event name", { type: "string", enum: [...WEBHOOK_EVENTS] }),
          header("X-Webhook-Signature", "hex HMAC-SHA256 of the raw body, keyed with the webhook's secret", { type: "string", pattern: "^[0-9a-f]{64}$" }),
          header("X-Webhook-Delivery-Id", "the delivery id, the same on every attempt", { type: "string", format: "uuid" }),
          header("X-Webhook-Attempt", "1 on the first attempt, counting up", { type: "integer", minimum: 1 }),
          header("X-Webhook-Timestamp", "unix seconds of this attempt", { type: "integer" }),
          header("webhook-id", "Standard Webhooks: the delivery id", { type: "string", format: "uuid" }),
          header("webhook-timestamp", "Standard Webhooks: unix seconds of this attempt", { type: "integer" }),
          header("webhook-signature", "Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`", { type: "string" }),
          header("X-Webhook-Test", "present (true) only on test deliveries", { type: "string", enum: ["true"] }, false),
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { oneOf: WEBHOOK_EVENTS.map(ref), discriminator: { propertyName: "event", mapping: Object.fromEntries(WEBHOOK_EVENTS.map((e) => [e, ref(e).$ref])) } },
            },
          },
        },
        responses: {
          "200": { description: "Any 2xx: delivered (the body is kept, up to 4 KiB, in the history)" },
          "410": { description: "Gone: the webhook is switched off (isActive false, disabledReason gone)" },
          default: { description: "Anything else, a redirect or no answer within 10 s: retried later (Retry-After is honoured)" },
        },
      },
    },
  };
}
