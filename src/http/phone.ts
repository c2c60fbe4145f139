import { isPossiblePhoneNumber } from "libphonenumber-js/min";
import { z } from "zod";

const DIGITS = /^\d{8,15}$/;

/** Whether `digits` (country code first, no plus: D1) is a possible number of its country. */
export function isPossiblePhone(digits: string): boolean {
  return DIGITS.test(digits) && isPossiblePhoneNumber("+" + digits);
}

/** The one phone field of every request (D1): 8 to 15 digits with the country code, no plus, a possible number. */
export const phoneField = z
  .string({ error: "is required" })
  .regex(DIGITS, "must be 8 to 15 digits with the country code, no plus sign")
  .refine(isPossiblePhone, "is not a possible phone number for its country code");
