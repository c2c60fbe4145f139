import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { tokenPairDoc } from "../auth/docs.ts";
import { ROLES } from "../users/roles.ts";

// Response `data` shapes of /api/setup, for the OpenAPI document only (the answers are built by
// the service); made when the document is first asked for (docSchema).

const delivery = (channel: string) => z.enum([channel, "outbox"]);

export const setupStatusDoc = docSchema(() =>
  z.object({
    needsSetup: z.boolean().describe("the database has no workspace yet: the start log holds a setup link"),
    tokenValid: z.boolean().describe("the token given is this server's open setup link (it lives in the memory of the node that printed it)"),
    simNetwork: z.boolean().describe("the server runs the simulated network: the dashboard offers a simulated scan"),
    captcha: z.boolean().describe("whether sign-up and log-in ask for a captcha"),
    codes: z
      .object({ email: delivery("mail"), mobile: delivery("sms") })
      .describe("where verification codes, invitations and reset links go: outbox when mail or SMS is not set up (`parley outbox`)"),
  }),
);

export const setupDoneDoc = docSchema(() =>
  tokenPairDoc().extend({
    user: z.object({ id: z.uuid(), email: z.string(), role: z.enum(ROLES) }),
    workspaceId: z.uuid().describe("the first workspace, on the unlimited plan"),
  }),
);
