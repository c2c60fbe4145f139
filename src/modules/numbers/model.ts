import { z } from "zod";
import { phoneField } from "../../http/phone.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

/** POST /api/v1/chatapp/{id}/check: 1 to 50 numbers (repeats are answered once). */
export const checkBody = lazySchema(() =>
  z.object({
    phones: z
      .array(phoneField, { error: (i) => (i.input === undefined ? "is required" : "must be a list of phone numbers") })
      .min(1, "must name at least one number")
      .max(50, "must name at most 50 numbers"),
  }),
);
export type CheckBody = z.infer<typeof checkBody>;
