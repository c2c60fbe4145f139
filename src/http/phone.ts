import { isPossiblePhoneNumber } from "libphonenumber-js/min";
import { z } from "zod";

const DIGITS = /^\d{8,15}$/;
/** What people type around the digits: spaces, dashes, dots, parentheses, one leading plus. */
const DECORATION = /[\s\-.()]/g;

/** Whether `digits` (country code first, no plus: D1) is a possible number of its country. */
export function isPossiblePhone(digits: string): boolean {
  return DIGITS.test(digits) && isPossiblePhoneNumber("+" + digits);
}

/**
 * The D1 form of a number as people write it: `+91 98000-00000` and `(415) 555 0123` lose their
 * decoration and the leading plus. Anything else (letters, a plus in the middle) is left as it
 * is, so the check after it names the problem.
 */
export function normalisePhone(raw: string): string {
  const s = raw.trim().replace(DECORATION, "");
  const digits = s.startsWith("+") ? s.slice(1) : s;
  return /^\d+$/.test(digits) ? digits : raw;
}

/**
 * The one phone field of every request (D1): 8 to 15 digits with the country code, a possible
 * number. A leading `+`, spaces, dashes, dots and parentheses are accepted and dropped, so the
 * stored value is always bare digits.
 */
export const phoneField = z
  .string({ error: "is required" })
  .transform(normalisePhone)
  .pipe(
    z
      .string()
      .regex(DIGITS, "must be 8 to 15 digits with the country code (a leading +, spaces and dashes are allowed)")
      .refine(isPossiblePhone, "is not a possible phone number for its country code"),
  )
  .describe("phone number with the country code, e.g. 919800000000 (+, spaces, dashes and parentheses are dropped)");
