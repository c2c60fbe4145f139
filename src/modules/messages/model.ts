import { z } from "zod";
import { DIRECTIONS, MESSAGE_STATUSES, STORED_MESSAGE_TYPES } from "./table.ts";
import { isRichType, refineRich, richSendFields } from "./rich-send.ts";
import { phoneField } from "../../http/phone.ts";
import { recipientField } from "./recipient.ts";
import { lazySchema } from "../../http/lazy-schema.ts";
import { GROUP_ADDRESS } from "../../network/group-address.ts";
import { withPlainTextSend } from "./send-body-fast.ts";

/** Digits with the country code, no plus, 8 to 15 digits. */
export const phoneNumber = phoneField;

const SOURCES = ["mediaUrl", "mediaId", "media"] as const;

/** POST /api/v1/messages/send (docs/messages.md); a plain text send is answered without the schema's walk (send-body-fast.ts). */
export const sendBody = lazySchema(() => withPlainTextSend(sendSchema()));

const sendSchema = () =>
  z
    .object({
      /** the documented name; `sessionId` (the name answers use) is accepted too */
      session_id: z.uuid().optional().describe("the session to send from (required; sessionId is accepted in its place)"),
      sessionId: z.uuid().optional().describe("the same as session_id, under the name answers use; give one of the two"),
      to: recipientField.optional().describe("the recipient (required unless groupId is given)"),
      /** a group the session is in (GET /api/v1/chatapp/{id}/groups), in place of `to` */
      groupId: z.string().regex(GROUP_ADDRESS, "must be a group id (…@g.us) from GET /api/v1/chatapp/{id}/groups").optional()
        .describe("a group of the session (GET /api/v1/chatapp/{id}/groups), in place of to"),
      type: z.enum(STORED_MESSAGE_TYPES).default("text"),
      /** text, or the caption of media */
      body: z.string().max(4096).optional(),
      /** in place of body: a quick reply of the workspace, its variables filled for the recipient's contact */
      quickReplyId: z.uuid().optional().describe("in place of body: a quick reply of the workspace, its variables filled for the recipient's contact"),
      /** schedule the send: queued at this time (future, at most 30 days ahead); answered with status scheduled */
      sendAt: z.iso.datetime({ offset: true, message: "must be an ISO 8601 time (e.g. 2026-12-01T09:00:00Z)" }).optional().describe("schedule the send: queued at this time (future, at most 30 days ahead)"),
      mediaUrl: z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048).optional(),
      mediaId: z.uuid().optional(),
      /** base64 (or a data: URI) of the file */
      media: z.string().min(1).optional(),
      mimeType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type like image/png").max(127).optional(),
      filename: z.string().min(1).max(255).optional(),
      ...richSendFields(),
    })
    .superRefine((v, ctx) => {
      if (v.session_id === undefined && v.sessionId === undefined) ctx.addIssue({ code: "custom", path: ["session_id"], message: "is required (the session to send from; sessionId is accepted too)" });
      if (v.session_id !== undefined && v.sessionId !== undefined && v.session_id !== v.sessionId) ctx.addIssue({ code: "custom", path: ["sessionId"], message: "differs from session_id: give one of them" });
      if (v.to === undefined && v.groupId === undefined) ctx.addIssue({ code: "custom", path: ["to"], message: "is required (or groupId, to send to a group)" });
      if (v.to !== undefined && v.groupId !== undefined) ctx.addIssue({ code: "custom", path: ["groupId"], message: "cannot be combined with to: give one of them" });
      const given = SOURCES.filter((k) => v[k] !== undefined);
      if (v.quickReplyId !== undefined && v.body !== undefined) ctx.addIssue({ code: "custom", path: ["quickReplyId"], message: "give body or quickReplyId, not both" });
      refineRich(v, ctx);
      if (v.sendAt !== undefined && (isRichType(v.type) || v.replyTo !== undefined)) ctx.addIssue({ code: "custom", path: ["sendAt"], message: "is only for messages that quote none and are not reactions, locations or contact cards" });
      if (v.type === "text" || isRichType(v.type)) {
        if (v.type === "text" && !v.body?.trim() && v.quickReplyId === undefined) ctx.addIssue({ code: "custom", path: ["body"], message: "is required for text messages (or quickReplyId)" });
        for (const k of given) ctx.addIssue({ code: "custom", path: [k], message: "is only for media messages" });
        return;
      }
      if (given.length === 0) ctx.addIssue({ code: "custom", path: ["media"], message: `one of mediaUrl, mediaId or media is required for ${v.type} messages` });
      for (const k of given.slice(1)) ctx.addIssue({ code: "custom", path: [k], message: `give only one of ${given.join(", ")}` });
    })
    // the API reference's sample body: a text message that is accepted as it is, given a session id of the workspace
    .meta({ example: { session_id: "0193a1f4-6c2e-7d10-8a4b-3f5e2c1d9b7a", to: "919876543210", type: "text", body: "Hello from Parley" } })
    // one name downstream; `to` is the address the message goes to (a group's too)
    .transform(({ sessionId, ...v }) => ({ ...v, to: (v.groupId ?? v.to)!, session_id: (v.session_id ?? sessionId)! }));
export type SendBody = z.infer<typeof sendBody>;

export const messageIdParams = lazySchema(() => z.object({ id: z.uuid() }));

/** Keyset pagination (docs/api.md): `before`/`after` are message ids (UUIDv7, time-ordered). */
export const cursorFields = lazySchema(() => ({
  before: z.uuid().optional(),
  after: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  // OFFSET paging would scan millions of rows: only the first page is addressed by number
  page: z.coerce.number().int().min(1).max(1, "only page 1 exists here; continue with before=pagination.nextCursor").optional(),
}));

/** Refuses `before` together with `after`. */
export function oneCursor<T extends z.ZodObject>(schema: T) {
  return schema.refine((q: { before?: string; after?: string }) => !(q.before && q.after), { path: ["after"], message: "cannot be combined with before" });
}

export const cursorQuery = lazySchema(() => oneCursor(z.object(cursorFields)));

export const messageListQuery = lazySchema(() =>
  oneCursor(
    z.object({
      ...cursorFields,
      sessionId: z.uuid().optional(),
      phone: recipientField.optional(),
      /** a group chat's messages (its id, …@g.us) */
      groupId: z.string().regex(GROUP_ADDRESS, "must be a group id (…@g.us)").optional(),
      contactId: z.uuid().optional(),
      direction: z.enum(DIRECTIONS).optional(),
      status: z.enum(MESSAGE_STATUSES).optional(),
      campaignId: z.uuid().optional(),
    }),
  ),
);
export type MessageListQuery = z.infer<typeof messageListQuery>;

/** The `pagination` of keyset lists: no total (it would cost a count over the whole table). */
