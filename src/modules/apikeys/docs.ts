import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";

// Response `data` shapes of the API key routes, for the OpenAPI document only (docSchema).

const isoTime = () => z.string().describe("ISO 8601, UTC, milliseconds");

const apiKey = () =>
  z.object({ id: z.uuid(), name: z.string(), prefix: z.string().describe("the key's first characters, to recognise it"), createdAt: isoTime(), lastUsedAt: isoTime().nullable(), expiresAt: isoTime().nullable() });

export const apiKeyDoc = docSchema(apiKey);
export const createdApiKeyDoc = docSchema(() => apiKey().extend({ key: z.string().describe("the key itself (send as X-API-Key), shown only now") }));
