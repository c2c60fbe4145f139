import { z } from "zod";
import { pageQuery } from "../../http/envelope.ts";

export const contactIdParams = z.object({ id: z.uuid() });

export const contactListQuery = pageQuery.extend({
  /** part of the phone number, name or push name */
  search: z.string().trim().min(1).max(100).optional(),
});
