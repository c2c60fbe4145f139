import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { SESSION_STATUSES } from "./table.ts";

// Response `data` shapes of the session routes, for the OpenAPI document only (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, milliseconds");

export const sessionDoc = docSchema(() =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    status: z.enum(SESSION_STATUSES),
    phoneNumber: z.string().nullable().describe("digits with the country code, once linked"),
    connected: z.boolean(),
    live: z.boolean().describe("the link to the network is open now; a connected session reads false while a restart or another node brings it back"),
    lastDisconnectReason: z.string().nullable().describe("user_request, logged_out, connection_lost, ..."),
    connectedAt: isoTime().nullable(),
    settings: z.object({ groups: z.boolean().describe("group messages are stored (off: dropped); docs/groups.md") }),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  }),
);

export const connectDoc = docSchema(() =>
  z.object({ id: z.uuid(), status: z.enum(SESSION_STATUSES), phoneNumber: z.string().nullable(), message: z.string().describe("what to do next") }),
);

export const qrDoc = docSchema(() =>
  z.object({ qr: z.string().describe("the QR code's text"), qrDataUrl: z.string().describe("PNG data URI of the QR code"), expiresAt: isoTime() }),
);

export const pairingCodeDoc = docSchema(() => z.object({ code: z.string().describe("8 characters to type on the phone") }));
