import { z } from "zod";
import { ERROR_CODES } from "../errors.ts";
import { resolveLazy } from "./lazy-schema.ts";

/** An OpenAPI 3.0 response object. */
export interface ResponseDoc {
  description: string;
  content?: Record<string, { schema: Record<string, unknown> }>;
}

/** Error statuses every route may document with the failure envelope (docs/api.md). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 502 | 503;

const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: "VALIDATION_ERROR: `errors` maps dotted field paths to messages",
  401: "UNAUTHORIZED: missing, invalid or expired credential",
  403: "FORBIDDEN (role), LIMIT_EXCEEDED (plan quota) or SUBSCRIPTION_INACTIVE",
  404: "NOT_FOUND: no such resource in the caller's workspace",
  409: "CONFLICT with the resource's current state",
  413: "VALIDATION_ERROR: the body is over its size cap",
  429: "RATE_LIMITED: retry after the Retry-After header",
  502: "CHATAPP_UNAVAILABLE: the session is not connected or the network refused",
  503: "INTERNAL_ERROR: not ready",
};

/** Name of the failure envelope in `components.schemas`. */
export const ERROR_ENVELOPE = "ErrorEnvelope";

/** The failure envelope (docs/api.md), as a component schema. */
export const errorEnvelopeSchema = {
  type: "object",
  required: ["success", "code", "message", "requestId"],
  properties: {
    success: { type: "boolean", enum: [false] },
    code: { type: "string", enum: Object.keys(ERROR_CODES) },
    message: { type: "string" },
    errors: { type: "object", additionalProperties: { type: "string" }, description: "dotted field path to message" },
    data: { description: "extra data of some failures (e.g. resume data of a 403 at login)" },
    requestId: { type: "string", description: "also in the X-Request-Id header" },
  },
};

/** Turns a zod schema into the OpenAPI 3.0 flavour of JSON Schema (a File field is a binary string). */
export function zodToOpenApi(schema: z.ZodType, io: "input" | "output" = "input"): Record<string, unknown> {
  // zod keys the conversion by identity: the tree must hold schemas, not lazy stand-ins
  return z.toJSONSchema(resolveLazy(schema), {
    target: "openapi-3.0",
    io,
    unrepresentable: "any",
    override: (ctx) => {
      const def = ctx.zodSchema._zod.def as { type: string };
      const bag = ctx.zodSchema._zod.bag as { Class?: unknown };
      if (def.type === "custom" && bag.Class === File) Object.assign(ctx.jsonSchema, { type: "string", format: "binary" });
    },
  }) as Record<string, unknown>;
}

const PAGE_PAGINATION = {
  type: "object",
  required: ["page", "limit", "total", "totalPages"],
  properties: { page: { type: "integer" }, limit: { type: "integer" }, total: { type: "integer" }, totalPages: { type: "integer" } },
};
const CURSOR_PAGINATION = {
  type: "object",
  required: ["limit", "hasMore", "nextCursor", "prevCursor"],
  properties: {
    limit: { type: "integer" },
    hasMore: { type: "boolean" },
    nextCursor: { type: "string", nullable: true, description: "pass as `before` for the next (older) page" },
    prevCursor: { type: "string", nullable: true, description: "pass as `after` for newer items" },
  },
};

/**
 * A documentation-only schema, built when first asked for: response shapes are read by nothing
 * but the OpenAPI document, so a server that is never asked for /openapi.json does not make
 * (and keep) them (issue 13). `envelopeResponses({ data })` takes one as it is.
 */
export function docSchema<T extends z.ZodType>(build: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= build());
}

export interface EnvelopeDoc {
  /** the success status (default 200) */
  status?: 200 | 201 | 202;
  /** schema of `data` (zod, a `docSchema`, or JSON Schema); default: any value */
  data?: z.ZodType | (() => z.ZodType) | Record<string, unknown>;
  /** `data` is an array of this and the envelope carries `pagination` */
  list?: "page" | "cursor";
  description?: string;
  /** error statuses beyond the ones the docs builder infers (400 with input, 401/403 with a credential, 404 with path ids, 429) */
  errors?: ErrorStatus[];
}

/** The success envelope `{ success: true, data?, message?, pagination? }` as a JSON schema. */
export function successEnvelopeSchema(o: Pick<EnvelopeDoc, "data" | "list"> = {}): Record<string, unknown> {
  const properties: Record<string, unknown> = { success: { type: "boolean", enum: [true] } };
  const data = o.data;
  const zod = typeof data === "function" ? data : data instanceof z.ZodType ? () => data : null;
  if (zod) {
    // converted when the OpenAPI document first reads it, not while the routes are declared at
    // start: zod's conversion of every route's schema was a third of the cold start (issue 13)
    let made: unknown;
    Object.defineProperty(properties, "data", {
      enumerable: true,
      configurable: true,
      get: () => (made ??= o.list ? { type: "array", items: zodToOpenApi(zod(), "output") } : zodToOpenApi(zod(), "output")),
    });
  } else {
    const json = (data ?? {}) as Record<string, unknown>;
    properties.data = o.list ? { type: "array", items: json } : json;
  }
  properties.message = { type: "string" };
  const required = ["success"];
  if (o.list) {
    properties.pagination = o.list === "page" ? PAGE_PAGINATION : CURSOR_PAGINATION;
    required.push("data", "pagination");
  }
  return { type: "object", required, properties };
}

/** The response object of an error status: the failure envelope. */
export function errorResponse(status: ErrorStatus): ResponseDoc {
  return { description: ERROR_TEXT[status], content: { "application/json": { schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE}` } } } };
}

/**
 * The `responses` of a route in the envelope, for its `detail`:
 * `detail: { summary, responses: envelopeResponses({ status: 201, data: viewSchema, errors: [409] }) }`.
 * The docs builder adds the error statuses it can infer and a 200 to routes that declare none.
 */
export function envelopeResponses(o: EnvelopeDoc = {}): Record<string, ResponseDoc> {
  const status = o.status ?? 200;
  const out: Record<string, ResponseDoc> = {
    [status]: {
      description: o.description ?? (status === 201 ? "Created" : status === 202 ? "Accepted" : "OK"),
      content: { "application/json": { schema: successEnvelopeSchema(o) } },
    },
  };
  for (const e of o.errors ?? []) out[e] = errorResponse(e);
  return out;
}
