import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { DIRECTIONS, MESSAGE_STATUSES, STORED_MESSAGE_TYPES } from "../messages/table.ts";

// Response `data` shape of the inbox routes, for the OpenAPI document only (docSchema).

const isoTime = z.string().describe("ISO 8601, UTC, milliseconds");

export const conversationDoc = docSchema(() =>
  z.object({
    id: z.uuid(),
    sessionId: z.uuid(),
    phone: z.string().describe("the contact's number, or a group's id (…@g.us)"),
    groupId: z.string().nullable().describe("a group conversation: the group's id (…@g.us); null for a person's"),
    groupName: z.string().nullable().describe("a group conversation: the group's name as last known"),
    participants: z.array(z.string()).nullable().describe("a group conversation: its members as last known (phones, or `…@lid`)"),
    contact: z.object({ id: z.uuid(), phone: z.string(), name: z.string().nullable(), pushName: z.string().nullable() }).nullable(),
    lastMessage: z
      .object({
        id: z.uuid(),
        direction: z.enum(DIRECTIONS),
        type: z.enum(STORED_MESSAGE_TYPES),
        body: z.string().nullable(),
        status: z.enum(MESSAGE_STATUSES),
        createdAt: isoTime.nullable(),
      })
      .nullable(),
    lastMessageAt: isoTime.nullable(),
    unreadCount: z.number().int(),
    lastReadAt: isoTime.nullable(),
    assignee: z.object({ id: z.uuid(), name: z.string().nullable(), email: z.string().nullable() }).nullable(),
    createdAt: isoTime.nullable(),
  }),
);
