import { z } from "zod";
import { pageQuery } from "../../http/envelope.ts";
import { attributesField, contactPhoneField, nameField, tagField, tagsField } from "./fields.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

export const contactIdParams = lazySchema(() => z.object({ id: z.uuid() }));
export const importIdParams = lazySchema(() => z.object({ id: z.uuid() }));

/** `tag` may repeat in the query string (any of them matches). */
const tagQuery = lazySchema(() =>
  z
    .union([tagField, z.array(tagField).max(50, "at most 50 tags")])
    .transform((v) => (Array.isArray(v) ? [...new Set(v)] : [v]))
    .optional(),
);

/** The filters of the list, shared with the export. */
export const contactFilterQuery = lazySchema(() =>
  z.object({
    /** part of the phone number, name or push name */
    search: z.string().trim().min(1).max(100).optional(),
    /** repeatable: contacts with any of these tags */
    tag: tagQuery,
    optedOut: z
      .enum(["true", "false"], { error: "must be true or false" })
      .transform((v) => v === "true")
      .optional(),
  }),
);
export type ContactFilter = z.infer<typeof contactFilterQuery>;

export const contactListQuery = lazySchema(() => pageQuery.extend(contactFilterQuery.shape));
export type ContactListQuery = z.infer<typeof contactListQuery>;

export const createContactBody = lazySchema(() =>
  z.object({
    phone: contactPhoneField,
    name: nameField.nullish(),
    tags: tagsField.optional(),
    attributes: attributesField.optional(),
  }),
);
export type CreateContactInput = z.infer<typeof createContactBody>;

export const updateContactBody = lazySchema(() =>
  z
    .object({
      /** null or "" clears the name */
      name: nameField.nullish(),
      /** replaces the tags */
      tags: tagsField.optional(),
      /** replaces the attributes (send the whole object) */
      attributes: attributesField.optional(),
      optedOut: z.boolean().optional(),
    })
    .refine((b) => b.name !== undefined || b.tags !== undefined || b.attributes !== undefined || b.optedOut !== undefined, {
      message: "give at least one of name, tags, attributes, optedOut",
      path: ["body"],
    }),
);
export type UpdateContactInput = z.infer<typeof updateContactBody>;

export const importBody = lazySchema(() =>
  z.object({
    file: z.instanceof(File, { message: "is required (a CSV file part)" }).meta({ type: "string", format: "binary" }),
  }),
);

// -- response shapes (OpenAPI) --
export const contactSchema = lazySchema(() =>
  z.object({
    id: z.uuid(),
    phone: z.string(),
    name: z.string().nullable(),
    pushName: z.string().nullable(),
    tags: z.array(z.string()),
    attributes: z.record(z.string(), z.string()),
    optedOut: z.boolean(),
    optedOutAt: z.string().nullable(),
    lastInboundAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type ContactView = z.infer<typeof contactSchema>;

export const importSchema = lazySchema(() =>
  z.object({
    id: z.uuid(),
    status: z.enum(["queued", "running", "completed", "failed"]),
    filename: z.string().nullable(),
    total: z.number().int().nullable(),
    processed: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    rejected: z.number().int(),
    error: z.string().nullable(),
    errors: z.array(z.object({ row: z.number().int(), message: z.string() })),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
  }),
);
export type ImportView = z.infer<typeof importSchema>;
