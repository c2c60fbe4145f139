import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { DIRECTIONS, MESSAGE_STATUSES, STORED_MESSAGE_TYPES } from "../messages/table.ts";
import { CONVERSATION_STATUSES } from "./table.ts";
import { messageDoc } from "../docs/schemas.ts";

// Response `data` shape of the inbox routes, for the OpenAPI document only (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, milliseconds");

export const conversationDoc = docSchema(() =>
  z.object({
    id: z.uuid(),
    sessionId: z.uuid(),
    session: z.object({ id: z.uuid(), name: z.string().nullable(), phoneNumber: z.string().nullable() }).describe("the session (number) the conversation belongs to; name null once the session is deleted"),
    phone: z.string().describe("the contact's number, or a group's id (…@g.us)"),
    groupId: z.string().nullable().describe("a group conversation: the group's id (…@g.us); null for a person's"),
    groupName: z.string().nullable().describe("a group conversation: the group's name as last known"),
    participants: z.array(z.string()).nullable().describe("a group conversation: its members as last known (phones, or `…@lid`)"),
    contact: z.object({ id: z.uuid(), phone: z.string(), name: z.string().nullable(), pushName: z.string().nullable() }).nullable(),
    status: z.enum(CONVERSATION_STATUSES).describe("an inbound message turns closed into open; a conversation a campaign creates starts closed"),
    snoozedUntil: isoTime().nullable().describe("snoozed until then; an inbound message clears it"),
    labels: z.array(z.string()),
    cursor: z.string().describe("its place in the list (time of the last message and id): pass as before for the conversations after it, as after for those before it"),
    lastMessage: z
      .object({
        id: z.uuid(),
        preview: z.string().describe("one line: the text or caption (shortened), else the type in brackets"),
        at: isoTime().nullable(),
        direction: z.enum(DIRECTIONS),
        type: z.enum(STORED_MESSAGE_TYPES),
        body: z.string().nullable(),
        status: z.enum(MESSAGE_STATUSES),
        createdAt: isoTime().nullable(),
      })
      .nullable(),
    lastMessageAt: isoTime().nullable(),
    unreadCount: z.number().int(),
    lastReadAt: isoTime().nullable(),
    assignee: z.object({ id: z.uuid(), name: z.string().nullable(), email: z.string().nullable() }).nullable(),
    createdAt: isoTime().nullable(),
  }),
);

export const noteDoc = docSchema(() =>
  z.object({
    id: z.uuid(),
    conversationId: z.uuid(),
    sessionId: z.uuid(),
    type: z.literal("note"),
    body: z.string(),
    author: z.object({ id: z.uuid(), name: z.string().nullable(), email: z.string().nullable() }).nullable().describe("the member who wrote it; null once the user is deleted"),
    createdAt: isoTime(),
  }).describe("an internal note: for the team only, never sent, never in a webhook"),
);

/** An item of a conversation's thread: a message, or an internal note (`type: "note"`). */
export const threadItemDoc = docSchema(() => z.union([messageDoc(), noteDoc()]));

export const searchHitDoc = docSchema(() =>
  messageDoc().extend({ conversation: conversationDoc().nullable().describe("the conversation the message belongs to") }),
);
