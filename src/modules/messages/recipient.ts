import { z } from "zod";
import { phoneField } from "../../http/phone.ts";

/**
 * A contact the network knows only by its LID (it hides the number): `<digits>@lid`, exactly
 * as an inbound message's `from` and the contact's `phone` show it.
 */
export const LID_ADDRESS = /^\d{1,20}@lid$/;

/** Whether a stored contact address is a LID rather than a phone number. */
export function isLidAddress(address: string): boolean {
  return LID_ADDRESS.test(address);
}

/** `to` of a send: a phone number (D1), or the `<digits>@lid` address of a contact whose number the network hides. */
export const recipientField = z.union([z.string().regex(LID_ADDRESS), phoneField], {
  error: (iss) =>
    iss.input === undefined
      ? "is required"
      : "must be 8 to 15 digits with the country code (no plus sign), or the <digits>@lid address of a contact whose number the network hides",
});
