import { z } from "zod";
import { phoneField } from "../../http/phone.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

// The field rules of contacts (docs/contacts-and-campaigns.md), shared by the API bodies, the CSV import and segment filters.
export const MAX_TAGS = 50;
export const MAX_ATTRIBUTES = 50;
export const MAX_ATTRIBUTE_VALUE = 500;
export const MAX_NAME = 100;
export const ATTRIBUTE_KEY = /^[a-zA-Z][a-zA-Z0-9_]{0,39}$/;
export const ATTRIBUTE_KEY_MESSAGE = "must start with a letter and hold only letters, digits and _ (at most 40 characters)";

/** A tag: trimmed, lower-cased, 1-40 characters. */
export const tagField = lazySchema(() => z.string().trim().toLowerCase().min(1, "must not be empty").max(40, "must be at most 40 characters"));

/** A contact's tags: duplicates merged, at most 50. */
export const tagsField = lazySchema(() =>
  z
    .array(tagField)
    .max(MAX_TAGS, `must have at most ${MAX_TAGS} tags`)
    .transform((tags) => [...new Set(tags)]),
);

/** A contact's attributes: string values, keys as in docs/contacts-and-campaigns.md (errors name the key: `attributes.KEY`). */
export const attributesField = lazySchema(() =>
  z.preprocess(
    (v, ctx) => {
      // JSON.parse keeps a "__proto__" key as an own key, which the record below would skip in silence
      if (v && typeof v === "object" && Object.hasOwn(v, "__proto__")) ctx.addIssue({ code: "custom", path: ["__proto__"], message: ATTRIBUTE_KEY_MESSAGE, input: v });
      return v;
    },
    z
      .record(
        z.string().regex(ATTRIBUTE_KEY),
        z.string({ error: "must be a string" }).max(MAX_ATTRIBUTE_VALUE, `must be at most ${MAX_ATTRIBUTE_VALUE} characters`),
        { error: (iss) => (iss.code === "invalid_key" ? ATTRIBUTE_KEY_MESSAGE : undefined) },
      )
      .refine((a) => Object.keys(a).length <= MAX_ATTRIBUTES, `must have at most ${MAX_ATTRIBUTES} keys`),
  ),
);

/** A contact name the workspace gives (empty clears it). */
export const nameField = lazySchema(() => z.string().trim().max(MAX_NAME, `must be at most ${MAX_NAME} characters`));

/** A request phone: the shared phone field (docs/api.md) (decoration, call and trunk prefixes dropped, then checked), as every route. */
export const contactPhoneField = phoneField;

/** Problems of a tags list, for the import (messages as the API gives them), or null. */
export function tagProblem(tags: string[]): string | null {
  if (tags.length > MAX_TAGS) return `tags: at most ${MAX_TAGS}`;
  for (const t of tags) if (t.length > 40) return `tags: "${t.slice(0, 50)}" is longer than 40 characters`;
  return null;
}
