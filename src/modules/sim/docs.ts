import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";

// Response `data` shapes of the sim network's routes, for the OpenAPI document only (docSchema).

export const scanDoc = docSchema(() => z.object({ sessionId: z.uuid(), phoneNumber: z.string() }));
export const receiptDoc = docSchema(() => z.object({ networkMessageId: z.string(), status: z.enum(["delivered", "read"]) }));
export const logoutDoc = docSchema(() => z.object({ sessionId: z.uuid(), reason: z.string() }));
export const failDoc = docSchema(() => z.object({ sessionId: z.uuid(), count: z.number().int(), code: z.string() }));
export const absentDoc = docSchema(() => z.object({ phones: z.array(z.string()) }));
