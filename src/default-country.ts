import type { CountryCode } from "libphonenumber-js/min";

// The default country of phone numbers, apart from the phone module (phone.ts) so that setting
// it loads neither zod nor libphonenumber: every operator command sets it from its settings.

let country: CountryCode | undefined;

/**
 * The country of numbers written without their country code (the server's defaultCountry
 * setting, two letters such as IN), or undefined: such numbers are then read as if they began
 * with one. Set once when a runtime is built; the phone fields of every request follow it.
 */
export function setDefaultCountry(code: string | undefined): void {
  country = code ? (code.toUpperCase() as CountryCode) : undefined;
}

/** The default country in force, or undefined. */
export function defaultCountry(): CountryCode | undefined {
  return country;
}

/** The default country in force ("" when none): part of the key of anything that remembers parsed numbers. */
export function defaultCountryKey(): string {
  return country ?? "";
}
