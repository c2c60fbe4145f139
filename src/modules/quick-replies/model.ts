import { z } from "zod";
import { pageQuery } from "../../http/envelope.ts";
import { lazySchema } from "../../http/lazy-schema.ts";
import { variableErrors } from "../campaigns/variables.ts";

/** `/thanks` or `thanks`: stored lower case without the slash; letters, digits, `-` and `_`, 1 to 32. */
const shortcutField = lazySchema(() =>
  z
    .string()
    .trim()
    .toLowerCase()
    .transform((s) => s.replace(/^\//, ""))
    .pipe(z.string().regex(/^[\p{Ll}\p{Lo}\p{N}][\p{Ll}\p{Lo}\p{N}_-]{0,31}$/u, "must be 1 to 32 letters, digits, - or _ (a leading / is dropped)")),
);

/** The reply's text: 1 to 4096 characters, variables as in campaigns ({{name}}, {{phone}}, {{attributes.KEY}}, with |default). */
const bodyField = lazySchema(() =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(4096, "must be at most 4096 characters")
    .superRefine((body, ctx) => {
      for (const message of variableErrors(body)) ctx.addIssue({ code: "custom", message });
    }),
);

export const quickReplyIdParams = lazySchema(() => z.object({ id: z.uuid() }));

export const createQuickReplyBody = lazySchema(() => z.object({ shortcut: shortcutField, body: bodyField }));

export const updateQuickReplyBody = lazySchema(() =>
  z
    .object({ shortcut: shortcutField.optional(), body: bodyField.optional() })
    .refine((b) => b.shortcut !== undefined || b.body !== undefined, { message: "give at least one of shortcut, body" }),
);

export const quickReplyListQuery = lazySchema(() =>
  pageQuery.extend({
    /** shortcuts starting with this (what the composer has after `/`) */
    prefix: z
      .string()
      .trim()
      .toLowerCase()
      .transform((s) => s.replace(/^\//, ""))
      .pipe(z.string().max(32, "must be at most 32 characters"))
      .optional(),
  }),
);

export const quickReplySchema = lazySchema(() =>
  z.object({
    id: z.uuid(),
    shortcut: z.string(),
    body: z.string(),
    createdAt: z.string().describe("ISO 8601, UTC"),
    updatedAt: z.string().describe("ISO 8601, UTC"),
  }),
);
