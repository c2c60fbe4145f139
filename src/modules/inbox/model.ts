import { z } from "zod";
import { pageQuery } from "../../http/envelope.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

const bool = lazySchema(() => z.enum(["true", "false"]).transform((v) => v === "true"));

export const conversationIdParams = lazySchema(() => z.object({ id: z.uuid() }));

export const conversationListQuery = lazySchema(() =>
  pageQuery.extend({
    /** true: with unread messages; false: all read */
    unread: bool.optional(),
    /** true: assigned to someone; false: unassigned */
    assigned: bool.optional(),
    assigneeId: z.uuid().optional(),
    sessionId: z.uuid().optional(),
  }),
);

export const assignBody = lazySchema(() =>
  z.object({
    /** a member of the workspace who may send messages; null unassigns */
    userId: z.uuid().nullable(),
  }),
);
