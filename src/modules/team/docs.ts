import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { ROLES } from "../users/roles.ts";

// Response `data` shapes of the team routes, for the OpenAPI document only; made when the
// document is first asked for (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, milliseconds");

const member = () => z.object({ id: z.uuid(), email: z.string(), name: z.string(), role: z.enum(ROLES), twoFactorEnabled: z.boolean(), createdAt: isoTime() });
const invitation = () =>
  z.object({
    id: z.uuid(),
    email: z.string(),
    role: z.enum(ROLES),
    status: z.enum(["pending", "expired", "accepted", "revoked"]),
    invitedBy: z.uuid().nullable().describe("the member who invited (null when made with an API key or by the operator)"),
    createdAt: isoTime(),
    expiresAt: isoTime(),
  });

export const memberDoc = docSchema(member);
export const invitationDoc = docSchema(invitation);
export const sentInvitationDoc = docSchema(() => invitation().extend({ emailSent: z.boolean().describe("false: the mail could not be sent; resend it") }));
export const transferDoc = docSchema(() => z.object({ owner: member(), previousOwner: member() }));
export const acceptedDoc = docSchema(() =>
  z.object({ id: z.uuid(), email: z.string(), name: z.string(), role: z.enum(ROLES), tenantId: z.uuid(), tenantName: z.string() }),
);
