import { z } from "zod";
import { pageQuery } from "../../http/envelope.ts";
import { lazySchema } from "../../http/lazy-schema.ts";
import { cursorFields, oneCursor } from "../messages/model.ts";
import { CONVERSATION_STATUSES } from "./table.ts";

const bool = lazySchema(() => z.enum(["true", "false"]).transform((v) => v === "true"));

export const conversationIdParams = lazySchema(() => z.object({ id: z.uuid() }));

/** One label: trimmed, lower case, 1 to 40 characters (like a contact's tag). */
export const labelField = lazySchema(() => z.string().trim().toLowerCase().min(1, "must not be empty").max(40, "must be at most 40 characters"));

export const MAX_LABELS = 20;

/** A keyset cursor of the conversation list: `<last message time in unix ms>.<conversation id>` (the list's `nextCursor`/`prevCursor`). */
const cursorField = lazySchema(() =>
  z
    .string()
    .regex(/^\d{1,15}\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "must be a cursor this list returned (nextCursor or prevCursor)")
    .transform((v) => {
      const dot = v.indexOf(".");
      return { at: Number(v.slice(0, dot)), id: v.slice(dot + 1).toLowerCase() };
    }),
);

export const conversationListQuery = lazySchema(() =>
  pageQuery
    .extend({
      status: z.enum(CONVERSATION_STATUSES).optional(),
      /** `me`, `none` (unassigned) or a member's user id */
      assignee: z.union([z.enum(["me", "none"]), z.uuid()], { message: "must be me, none or a user id" }).optional(),
      label: labelField.optional(),
      /** true: the last message is inbound (someone waits for an answer) */
      needsReply: bool.optional(),
      /** true: snoozed now (snoozedUntil ahead); false: not snoozed */
      snoozed: bool.optional(),
      /** part of the contact's name, push name or phone */
      q: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters").optional(),
      /** true: with unread messages; false: all read */
      unread: bool.optional(),
      /** true: assigned to someone; false: unassigned */
      assigned: bool.optional(),
      assigneeId: z.uuid().optional(),
      sessionId: z.uuid().optional(),
      /** keyset paging: the page after this cursor (older conversations) */
      before: cursorField.optional(),
      /** keyset paging: the page before this cursor (more recent conversations) */
      after: cursorField.optional(),
    })
    .refine((q) => !(q.before && q.after), { path: ["after"], message: "cannot be combined with before" }),
);
export type ConversationListQuery = z.infer<typeof conversationListQuery>;

export const assignBody = lazySchema(() =>
  z.object({
    /** a member of the workspace who may send messages; null unassigns */
    userId: z.uuid().nullable(),
  }),
);

export const conversationPatchBody = lazySchema(() =>
  z
    .object({
      status: z.enum(CONVERSATION_STATUSES).optional(),
      /** ISO 8601 time in the future, or null to wake the conversation */
      snoozedUntil: z.iso.datetime({ offset: true, message: "must be an ISO 8601 time (e.g. 2026-12-01T09:00:00Z) or null" }).nullable().optional(),
      /** replaces the labels */
      labels: z
        .array(labelField)
        .max(MAX_LABELS, `must have at most ${MAX_LABELS} labels`)
        .transform((l) => [...new Set(l)])
        .optional(),
      /** a member of the workspace who may send messages; null unassigns */
      assigneeId: z.uuid().nullable().optional(),
    })
    .refine((b) => b.status !== undefined || b.snoozedUntil !== undefined || b.labels !== undefined || b.assigneeId !== undefined, {
      message: "give at least one of status, snoozedUntil, labels, assigneeId",
    }),
);
export type ConversationPatch = z.infer<typeof conversationPatchBody>;

export const noteBody = lazySchema(() =>
  z.object({
    /** the note's text: for the team only, never sent */
    body: z.string().trim().min(1, "must not be empty").max(4096, "must be at most 4096 characters"),
  }),
);

export const searchQuery = lazySchema(() =>
  oneCursor(
    z.object({
      ...cursorFields,
      /** words the message text must all hold (whole words, any case) */
      q: z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters"),
    }),
  ),
);
