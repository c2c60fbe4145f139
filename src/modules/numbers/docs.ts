import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";

// Response `data` shape of the number check routes, for the OpenAPI document only (docSchema).

export const numberStatusesDoc = docSchema(() =>
  z.array(
    z.object({
      phone: z.string().describe("digits with the country code, in the order asked (repeats once)"),
      onNetwork: z.boolean().describe("false: the number has no account on the network; a number the network could not place counts as on it"),
    }),
  ),
);
