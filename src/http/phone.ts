import { z } from "zod";
import { lazySchema } from "./lazy-schema.ts";
import { TextMemo } from "../memo.ts";
import { defaultCountry, defaultCountryKey, setDefaultCountry } from "../default-country.ts";

export { defaultCountryKey, setDefaultCountry };

type Lib = typeof import("libphonenumber-js/min");
let lib: Lib | undefined;
/** libphonenumber and its metadata, required on the first number checked rather than at start (issue 13). */
const phoneLib = (): Lib => (lib ??= require("libphonenumber-js/min") as Lib);

const DIGITS = /^\d{8,15}$/;
/** What people type around the digits: spaces, dashes, dots, parentheses, one leading plus. */
const DECORATION = /[\s\-.()]/g;

/** Whether a two-letter code is a country libphonenumber knows (for the setting's check). */
export function isKnownCountry(code: string): boolean {
  return phoneLib().isSupportedCountry(code.toUpperCase());
}

/**
 * What the library answered for a number already seen: a busy inbox hears the same numbers
 * again and again, and parsing one (three times for a phone field) was a twentieth of an
 * inbound message's CPU. Bounded (TextMemo starts over when full); the answers are pure, and
 * `normalisePhone` keys by the default country too.
 */
const MEMO_MAX = 10_000;
const possible = new TextMemo<boolean>(MEMO_MAX);
const valid = new TextMemo<boolean>(MEMO_MAX);
const normalised = new TextMemo<string>(MEMO_MAX);

/** Whether `digits` (country code first, no plus: docs/api.md) is a possible number of its country. */
export function isPossiblePhone(digits: string): boolean {
  return DIGITS.test(digits) && possible.get(digits, () => phoneLib().isPossiblePhoneNumber("+" + digits));
}

/** Whether `digits` (country code first, no plus) is a valid number of its country, not only of a possible length. */
export function isValidPhone(digits: string): boolean {
  return DIGITS.test(digits) && valid.get(digits, () => phoneLib().isValidPhoneNumber("+" + digits));
}

/** What a number was understood as, for a refusal: "+91 98000 0001 (India)". */
export function understoodAs(digits: string): string {
  const parsed = phoneLib().parsePhoneNumberFromString("+" + digits);
  if (!parsed) return `+${digits} (no country has the code it starts with)`;
  // an invalid number has no country of its own: name the main one of its country code
  const main = parsed.country ?? (require("libphonenumber-js/metadata.min.json") as { country_calling_codes: Record<string, string[]> }).country_calling_codes[parsed.countryCallingCode]?.[0];
  const country = main ? countryName(main) : null;
  return `${parsed.formatInternational()}${country ? ` (${country})` : ""}`;
}

function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
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
  // the same text is another number under another default country
  return normalised.get(`${defaultCountryKey()}\u0000${raw}`, () => normaliseOnce(raw));
}

function normaliseOnce(raw: string): string {
  const s = raw.trim().replace(DECORATION, "");
  const plus = s.startsWith("+");
  let digits = plus ? s.slice(1) : s;
  if (!/^\d+$/.test(digits)) return raw;
  if (!plus) {
    const international = digits.replace(/^(00|011)(?=[1-9])/, "");
    // with a default country, a number written as dialled at home (`98000 00001`, `020 7946
    // 0958`) is that country's when it is valid there and not already a valid number read
    // with a country code first (the documented form wins a tie: 14155550123 stays American)
    const country = defaultCountry();
    if (country && international === digits && !phoneLib().isValidPhoneNumber("+" + digits)) {
      const national = phoneLib().parsePhoneNumberFromString(digits, country);
      if (national?.isValid()) return national.number.slice(1);
    }
    digits = international;
  }
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
        .refine(isPossiblePhone, { error: "is not a possible phone number for its country code", abort: true })
        .superRefine((d, ctx) => {
          if (isValidPhone(d)) return;
          const hint = defaultCountry() ? "" : "; write it with its country code";
          ctx.addIssue({ code: "custom", message: `is not a valid number: understood as ${understoodAs(d)}${hint}` });
        }),
    )
    .describe("phone number with the country code, e.g. 919800000000 (+, spaces, dashes and parentheses are dropped)"),
);
