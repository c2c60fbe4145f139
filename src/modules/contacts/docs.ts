import { z } from "zod";
import { docSchema, zodToOpenApi } from "../../http/openapi.ts";

// OpenAPI response objects for the contacts and segments routes, built from the same zod
// shapes the services return (the generator only sees request schemas by itself).

// the zod shapes too are made only then (docSchema): nothing else reads them
const pagination = docSchema(() => z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), totalPages: z.number().int() }));
const failure = docSchema(() =>
  z.object({
    success: z.literal(false),
    code: z.string(),
    message: z.string(),
    errors: z.record(z.string(), z.string()).optional(),
    requestId: z.string(),
  }),
);

// typed loosely: the OpenAPI types of Elysia and zod's JSON Schema output do not line up
type Media = Record<string, { schema: Record<string, any> }>;
// the JSON Schema is made when the OpenAPI document first reads it, not while the routes are
// declared at start (zod's conversion was a third of the cold start, issue 13)
const json = (schema: () => z.ZodType): Media => {
  let made: Record<string, any> | undefined;
  const media = {
    get schema() {
      return (made ??= zodToOpenApi(schema(), "output"));
    },
  };
  return { "application/json": media };
};

/** `{success, data}` (or a page of `data` with `pagination`) under `status`, plus the failure envelope. */
export function responses(status: number, data: z.ZodType | null, opts: { paged?: boolean; description?: string } = {}): Record<string, { description: string; content: Media }> {
  const body = () =>
    z.object({
      success: z.literal(true),
      ...(data ? { data: opts.paged ? z.array(data) : data } : {}),
      message: z.string().optional(),
      ...(opts.paged ? { pagination: pagination() } : {}),
    });
  return {
    [status]: { description: opts.description ?? "Success", content: json(body) },
    default: { description: "Failure envelope", content: json(failure) },
  };
}

/** A non-JSON success (the CSV export). */
export function csvResponse(description: string): Record<string, { description: string; content: Media }> {
  return {
    200: { description, content: { "text/csv": { schema: { type: "string" } } } },
    default: { description: "Failure envelope", content: json(failure) },
  };
}
