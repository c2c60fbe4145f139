import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";

// Response `data` shape of the groups route, for the OpenAPI document only (docSchema).

export const groupsDoc = docSchema(() =>
  z.array(
    z.object({
      id: z.string().describe("the group's id (…@g.us): a send's groupId"),
      name: z.string().nullable(),
      participants: z.array(z.string()).describe("the members: phone numbers, or `…@lid` where the network hides one"),
    }),
  ),
);
