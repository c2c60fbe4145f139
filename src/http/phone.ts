import { z } from "zod";
import { lazySchema } from "./lazy-schema.ts";

type Lib = typeof import("libphonenumber-js/min");
let lib: Lib | undefined;
/** libphonenumber and its metadata, required on the first number checked rather than at start (issue 13). */
const phoneLib = (): Lib => (lib ??= require("libphonenumber-js/min") as Lib);

const DIGITS = /^\d{8,15}$/;
/** What people type around the digits: spaces, dashes, dots, parentheses, one leading plus. */
const DECORATION = /[\s\-.()]/g;

/** Whether `digits` (country code first, no plus: docs/api.md) is a possible number of its country. */
export function isPossiblePhone(digits: string): boolean {
  return DIGITS.test(digits) && phoneLib().isPossiblePhoneNumber("+" + digits);
}

/**
 * The stored form of a number (docs/api.md) as people write it: `+91 98000-00000` and `(415) 555 0123` lose their
 * decoration and the leading plus; an international call prefix instead of the plus (`00`, or
 * North America's `011`) is dropped too, and so is a national trunk prefix written after the
 * country code (`+44 (0)20 7946 0958` is 442079460958: libphonenumber knows which countries
 * drop it, Italy keeps its 0). Anything else (letters, a plus in the middle) is left as it is,
 * so the check after it names the problem.
 */
export function normalisePhone(raw: string): string {
  const s = raw.trim().replace(DECORATION, "");
  const plus = s.startsWith("+");
  let digits = plus ? s.slice(1) : s;
  if (!/^\d+$/.test(digits)) return raw;
  if (!plus) digits = digits.replace(/^(00|011)(?=[1-9])/, "");
  const parsed = phoneLib().parsePhoneNumberFromString("+" + digits);
  return parsed?.isPossible() ? parsed.number.slice(1) : digits;
}

/** Why a number that is all digits is still refused, in words a person can act on. */
const NATIONAL = "starts with 0: write it with the country code (e.g. +91 98000 00000), not as dialled at home";

/**
 * The one phone field of every request (docs/api.md): 8 to 15 digits with the country code, a possible
 * number. A leading `+`, spaces, dashes, dots and parentheses are accepted and dropped, so the
 * stored value is always bare digits.
 */
export const phoneField = lazySchema(() =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string, e.g. \"+91 98000 00000\"") })
    .transform(normalisePhone)
    .pipe(
      z
        .string()
        .regex(DIGITS, "must be 8 to 15 digits with the country code (a leading +, spaces and dashes are allowed)")
        .refine((d) => !d.startsWith("0"), { error: NATIONAL, abort: true })
        .refine(isPossiblePhone, "is not a possible phone number for its country code"),
    )
    .describe("phone number with the country code, e.g. 919800000000 (+, spaces, dashes and parentheses are dropped)"),
);
