import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { DIRECTIONS, MESSAGE_STATUSES, MESSAGE_TYPES, STORED_MESSAGE_TYPES } from "../messages/table.ts";
import { SESSION_STATUSES } from "../sessions/table.ts";

// Response `data` shapes for the OpenAPI document (documentation only: responses are not validated
// at run time), built when the document is first asked for (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, milliseconds");
const nullableIso = () => isoTime().nullable();

/** 202 of POST /messages/send (docs/messages.md). */
export const queuedMessageDoc = docSchema(() => z.object({
  id: z.uuid(),
  status: z.enum(["queued", "scheduled"]).describe("scheduled: a send with sendAt, queued at that time"),
  sessionId: z.uuid(),
  to: z.string().describe("the recipient, or the group's id for a send with groupId"),
  type: z.enum(MESSAGE_TYPES),
  createdAt: isoTime(),
  sendAt: isoTime().nullable().describe("a scheduled send: when it is queued; null for a send queued at once"),
}));

/** A message as GET /messages/{id} and the lists answer it. */
export const messageDoc = docSchema(() => z.object({
  id: z.uuid(),
  sessionId: z.uuid(),
  conversationId: z.string().nullable(),
  direction: z.enum(DIRECTIONS),
  from: z.string().nullable(),
  to: z.string().nullable(),
  groupId: z.string().nullable().describe("a group chat's message: the group's id (…@g.us)"),
  participant: z.string().nullable().describe("a group's inbound message: the member who wrote it"),
  participantName: z.string().nullable().describe("a group's inbound message: the member's profile name"),
  type: z.enum(STORED_MESSAGE_TYPES),
  body: z.string().nullable(),
  /** reactions, locations and contact cards: their fields (null for other types) */
  payload: z.record(z.string(), z.unknown()).nullable(),
  /** the id of the message this one quotes (a message of the same conversation), else null */
  replyTo: z.uuid().nullable(),
  mediaId: z.string().nullable(),
  mediaUrl: z.string().nullable(),
  mimeType: z.string().nullable(),
  filename: z.string().nullable(),
  status: z.enum(MESSAGE_STATUSES),
  networkMessageId: z.string().nullable(),
  attempts: z.number().int(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** the campaign that sent it (docs/contacts-and-campaigns.md), else null */
  campaignId: z.uuid().nullable(),
  /** the auto-reply that sent it (docs/automations.md), else null */
  automationId: z.uuid().nullable(),
  createdAt: nullableIso(),
  sendAt: nullableIso().describe("a scheduled send: when it is (or was to be) queued; null for the others"),
  sentAt: nullableIso(),
  deliveredAt: nullableIso(),
  readAt: nullableIso(),
  failedAt: nullableIso(),
}));

/** GET /api/external/sessions items. */
export const externalSessionDoc = docSchema(() => z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(SESSION_STATUSES),
  phoneNumber: z.string().nullable(),
}));

export const healthDoc = docSchema(() => z.object({ status: z.literal("ok"), version: z.string(), node: z.string(), uptimeSeconds: z.number().int() }));
export const readyDoc = docSchema(() => z.object({ status: z.literal("ready"), database: z.literal("ok"), writable: z.literal(true), migrations: z.number().int() }));
export const simInboundDoc = docSchema(() =>
  z.object({ networkMessageId: z.string(), messageId: z.uuid().nullable().describe("null when the message was not kept (a group message while the session's groups setting is off)") }),
);

/** A stored media file (POST /media 201). */
export const mediaDoc = docSchema(() => z.object({ id: z.uuid(), mimeType: z.string(), size: z.number().int(), filename: z.string().nullable(), createdAt: isoTime() }));
export const externalSessionsDoc = docSchema(() => z.array(externalSessionDoc()));
