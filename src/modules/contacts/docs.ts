import type { z } from "zod";
import { envelopeResponses, type ErrorStatus, type ResponseDoc } from "../../http/openapi.ts";

// OpenAPI response objects for the contacts and segments routes, built from the same zod
// shapes the services return (the generator only sees request schemas by itself); the schemas
// are converted when the OpenAPI document first reads them, not while the routes are declared.

/**
 * `{success, data}` (or a page of `data` with `pagination`) under `status`; `data` null: the
 * answer has no data. The docs builder adds the failures it can infer; `errors` adds others.
 */
export function responses(
  status: 200 | 201 | 202,
  data: z.ZodType | (() => z.ZodType) | null,
  opts: { paged?: boolean; description?: string; errors?: ErrorStatus[] } = {},
): Record<string, ResponseDoc> {
  return envelopeResponses({ status, data: data === null ? null : typeof data === "function" ? data : () => data, list: opts.paged ? "page" : undefined, description: opts.description, errors: opts.errors });
}

/** A non-JSON success (the CSV export). */
export function csvResponse(description: string): Record<string, ResponseDoc> {
  return { 200: { description, content: { "text/csv": { schema: { type: "string" } } } } };
}
