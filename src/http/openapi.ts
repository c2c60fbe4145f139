import { z } from "zod";
import { ERROR_CODES } from "../errors.ts";
import { resolveLazy } from "./lazy-schema.ts";

/** An OpenAPI 3.0 response object. */
export interface ResponseDoc {
  description: string;
  content?: Record<string, { schema: Record<string, unknown>; examples?: Record<string, { summary: string; value: unknown }> }>;
  headers?: Record<string, { description: string; schema: { type: "integer" | "string" } }>;
}

/** Error statuses a route may document with the failure envelope. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503;

const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: "VALIDATION_ERROR: `errors` maps dotted field paths to messages",
  401: "UNAUTHORIZED: missing, invalid or expired credential",
  403: "FORBIDDEN (role), LIMIT_EXCEEDED (plan quota) or SUBSCRIPTION_INACTIVE",
  404: "NOT_FOUND: no such resource in the caller's workspace",
  409: "CONFLICT with the resource's current state",
  413: "VALIDATION_ERROR: the body is over its size cap",
  429: "RATE_LIMITED: retry after the Retry-After header",
  500: "INTERNAL_ERROR: an unexpected failure (no details are given)",
  502: "CHATAPP_UNAVAILABLE: the session is not connected or the network refused",
  503: "INTERNAL_ERROR: not ready",
};

const REQUEST_ID = "0193a1f4-6c2e-7d10-8a4b-3f5e2c1d9b7a";
const failure = (code: string, message: string, extra: Record<string, unknown> = {}) => ({ success: false, code, message, ...extra, requestId: REQUEST_ID });

/** Example failure envelopes of each status, each with the code that status really carries. */
const ERROR_EXAMPLES: Record<ErrorStatus, Record<string, { summary: string; value: unknown }>> = {
  400: { validation: { summary: "A field failed validation", value: failure("VALIDATION_ERROR", "Request validation failed", { errors: { to: "must be 8 to 15 digits with the country code" } }) } },
  401: { unauthorized: { summary: "No or a bad credential", value: failure("UNAUTHORIZED", "Missing or invalid credentials") } },
  403: {
    forbidden: { summary: "The role may not do this", value: failure("FORBIDDEN", "You do not have permission to do this") },
    limitExceeded: { summary: "A plan quota is used up", value: failure("LIMIT_EXCEEDED", "Plan limit reached") },
    subscriptionInactive: { summary: "The plan does not allow it", value: failure("SUBSCRIPTION_INACTIVE", "This action is not allowed on the current plan") },
  },
  404: { notFound: { summary: "Not in the caller's workspace", value: failure("NOT_FOUND", "Resource not found") } },
  409: { conflict: { summary: "The resource's state does not allow it", value: failure("CONFLICT", "Conflict with the current state") } },
  413: { tooLarge: { summary: "The body is over its cap", value: failure("VALIDATION_ERROR", "Request body exceeds 1048576 bytes", { errors: { body: "must be at most 1048576 bytes" } }) } },
  429: { rateLimited: { summary: "Too many requests", value: failure("RATE_LIMITED", "Too many requests; retry after backoff") } },
  500: { internal: { summary: "Unexpected failure", value: failure("INTERNAL_ERROR", "Unexpected server error") } },
  502: { unavailable: { summary: "The session cannot send", value: failure("CHATAPP_UNAVAILABLE", "Session disconnected or provider error") } },
  503: { notReady: { summary: "Not ready", value: failure("INTERNAL_ERROR", "Not ready: database") } },
};

/** Name of the failure envelope in `components.schemas`. */
export const ERROR_ENVELOPE = "ErrorEnvelope";

/** The failure envelope, as a component schema. */
export const errorEnvelopeSchema = {
  type: "object",
  required: ["success", "code", "message", "requestId"],
  properties: {
    success: { type: "boolean", enum: [false] },
    code: { type: "string", enum: Object.keys(ERROR_CODES) },
    message: { type: "string" },
    errors: { type: "object", additionalProperties: { type: "string" }, description: "dotted field path to message" },
    data: { type: "object", additionalProperties: true, description: "extra data of some failures (e.g. resume data of a 403 at login)" },
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

/** Names of the two pagination objects in `components.schemas`. */
export const PAGE_PAGINATION = "PagePagination";
export const CURSOR_PAGINATION = "CursorPagination";

/** `pagination` of a numbered page (`page`, `limit`). */
export const pagePaginationSchema = {
  type: "object",
  required: ["page", "limit", "total", "totalPages"],
  properties: { page: { type: "integer", minimum: 1 }, limit: { type: "integer", minimum: 1 }, total: { type: "integer", minimum: 0 }, totalPages: { type: "integer", minimum: 0 } },
};

/** `pagination` of a keyset page (`before`/`after` cursors), newest first; no total. */
export const cursorPaginationSchema = {
  type: "object",
  required: ["limit", "hasMore", "nextCursor", "prevCursor"],
  properties: {
    limit: { type: "integer", minimum: 1 },
    hasMore: { type: "boolean", description: "more items lie beyond this page in the direction read" },
    nextCursor: { type: "string", nullable: true, description: "pass as `before` for the next (older) page; null when there is none" },
    prevCursor: { type: "string", nullable: true, description: "pass as `after` for newer items; null when this page holds the newest" },
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

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
  /**
   * schema of `data` (zod, a `docSchema`, or JSON Schema); `null`: the answer has no `data`
   * (only `message`). Left out, `data` is documented as any value, which the document's test refuses.
   */
  data?: z.ZodType | (() => z.ZodType) | Record<string, unknown> | null;
  /**
   * `data` is an array of this and the envelope carries `pagination`: of numbered pages, of
   * keyset cursors, or either (`page-or-cursor`: cursors when `before` or `after` is given)
   */
  list?: "page" | "cursor" | "page-or-cursor";
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
  } else if (data !== null) {
    const json = (data ?? {}) as Record<string, unknown>;
    properties.data = o.list ? { type: "array", items: json } : json;
  }
  properties.message = { type: "string" };
  const required = ["success"];
  if (o.list) {
    properties.pagination =
      o.list === "page" ? ref(PAGE_PAGINATION) : o.list === "cursor" ? ref(CURSOR_PAGINATION) : { oneOf: [ref(PAGE_PAGINATION), ref(CURSOR_PAGINATION)] };
    required.push("data", "pagination");
  } else if (zod || (data && Object.keys(data).length)) required.push("data");
  return { type: "object", required, properties };
}

/** The response object of an error status: the failure envelope. */
/** Names of the failure responses in `components.responses`, by status. */
export const ERROR_RESPONSE_NAMES: Record<ErrorStatus, string> = {
  400: "ValidationError",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "TooLarge",
  429: "RateLimited",
  500: "InternalError",
  502: "ChatappUnavailable",
  503: "NotReady",
};

/** Every failure response as a component: operations refer to them instead of repeating them. */
export function errorResponseComponents(): Record<string, ResponseDoc> {
  const out: Record<string, ResponseDoc> = {};
  for (const [status, name] of Object.entries(ERROR_RESPONSE_NAMES)) out[name] = errorResponse(Number(status) as ErrorStatus);
  return out;
}

export function errorResponse(status: ErrorStatus): ResponseDoc {
  const doc: ResponseDoc = { description: ERROR_TEXT[status], content: { "application/json": { schema: ref(ERROR_ENVELOPE), examples: ERROR_EXAMPLES[status] } } };
  if (status === 429) doc.headers = { "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer" } } };
  return doc;
}

/**
 * The `responses` of a route in the envelope, for its `detail`:
 * `detail: { summary, responses: envelopeResponses({ status: 201, data: viewSchema, errors: [409] }) }`.
 * The docs builder adds the error statuses it can infer and a 200 to routes that declare none.
 */
export function envelopeResponses(o: EnvelopeDoc = {}): Record<string, ResponseDoc> {
  const status = o.status ?? 200;
  const out: Record<string, ResponseDoc> = {};
  // each response is made when the document first reads it: every route declares its responses
  // while the server starts, and only /openapi.json reads them
  lazyEntry(out, status, () => ({
    description: o.description ?? (status === 201 ? "Created" : status === 202 ? "Accepted" : "OK"),
    content: { "application/json": { schema: successEnvelopeSchema(o) } },
  }));
  for (const e of o.errors ?? []) lazyEntry(out, e, () => errorResponse(e));
  return out;
}

/**
 * `target[key]`, made by `make` when first read (enumerable, as a plain property reads; it becomes
 * one when read or assigned).
 */
function lazyEntry<T>(target: Record<string, T>, key: number, make: () => T): void {
  const settle = (value: T) => (Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true }), value);
  Object.defineProperty(target, key, { enumerable: true, configurable: true, get: () => settle(make()), set: settle });
}
