import { z } from "zod";
import { defaultCountryKey, phoneField } from "../../http/phone.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

/**
 * A contact the network knows only by its LID (it hides the number): `<digits>@lid`, exactly
 * as an inbound message's `from` and the contact's `phone` show it.
 */
export const LID_ADDRESS = /^\d{1,20}@lid$/;

/** Whether a stored contact address is a LID rather than a phone number. */
export function isLidAddress(address: string): boolean {
  return LID_ADDRESS.test(address);
}

const MEMO_MAX = 10_000;
/** `to` as written → its bare digits (docs/api.md), for numbers that passed phoneField (parsing one is a tenth of a send's CPU). */
const accepted = new Map<string, string>();

/**
 * phoneField through a memo of the numbers it accepted. Any other outcome is an aborting issue,
 * which the union ignores when phoneField itself (the next option) reports why, so refusals
 * read exactly as without the memo.
 */
const rememberedPhone = lazySchema(() => z.string().transform((raw, ctx) => {
  // the same text is another number under another default country
  const key = defaultCountryKey() + raw;
  const hit = accepted.get(key);
  if (hit !== undefined) return hit;
  const r = phoneField.safeParse(raw);
  if (!r.success) {
    ctx.issues.push({ code: "custom", message: "is not a phone number", input: raw });
    return z.NEVER;
  }
  if (accepted.size >= MEMO_MAX) accepted.clear();
  accepted.set(key, r.data);
  return r.data;
}));

/**
 * What the recipient field answers for `raw` when that is already known without parsing: a LID
 * address as it is, or a number the field accepted before; undefined otherwise.
 */
export function knownRecipient(raw: string): string | undefined {
  if (LID_ADDRESS.test(raw)) return raw;
  return accepted.get(defaultCountryKey() + raw);
}

/** `to` of a send: a phone number (docs/api.md), or the `<digits>@lid` address of a contact whose number the network hides. */
export const recipientField = lazySchema(() => z.union([z.string().regex(LID_ADDRESS), rememberedPhone, phoneField], {
  error: (iss) =>
    iss.input === undefined
      ? "is required"
      : "must be 8 to 15 digits with the country code (no plus sign), or the <digits>@lid address of a contact whose number the network hides",
}));
