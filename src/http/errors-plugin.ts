import { Elysia } from "elysia";
import { AppError, ERROR_CODES, type FieldErrors } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { AllowedMethods } from "./allowed-methods.ts";
import { REQUEST, type WriteHealth } from "../ops/write-health.ts";
import { failureBody } from "./envelope.ts";
import { requestMeta } from "./request-meta.ts";

interface ValidationIssue {
  path?: string;
  message?: string;
  summary?: string;
}

/** Turns Elysia's validation error into the `errors` field map (dotted paths). */
export function fieldErrors(error: unknown): FieldErrors {
  const e = error as { all?: ValidationIssue[]; type?: string };
  const out: FieldErrors = {};
  for (const issue of e.all ?? []) {
    const path = (issue.path ?? "").replace(/^\//, "").replace(/\//g, ".") || e.type || "body";
    if (!(path in out)) out[path] = humanize(issue.message ?? issue.summary ?? "is invalid");
  }
  if (!Object.keys(out).length) out[e.type ?? "body"] = "is invalid";
  return out;
}

function humanize(message: string): string {
  if (/received undefined/.test(message)) return "is required";
  return message;
}

/** The failure answer of an error (the envelope, a 405 with Allow for a path that takes other methods). */
function failureOf(log: Logger, health: WriteHealth | undefined, allowed: AllowedMethods | undefined, code: unknown, error: unknown, request: Request, set: { headers: Record<string, unknown> }): Response {
  const meta = requestMeta(request);
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    meta.status = status;
    return new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json; charset=utf-8", "x-request-id": meta.id, ...corsHeaders(set.headers), ...headers },
    });
  };
  // Elysia wraps whatever a parse hook throws (our body caps) in a ParseError
  const app = error instanceof AppError ? error : (error as { cause?: unknown })?.cause instanceof AppError ? ((error as { cause: AppError }).cause) : null;
  if (app) return json(app.status, failureBody(app.code, app.message, meta.id, app.errors, app.data), app.headers);
  switch (code) {
    case "VALIDATION":
      return json(400, failureBody("VALIDATION_ERROR", "Request validation failed", meta.id, fieldErrors(error)));
    case "PARSE":
      return json(400, failureBody("VALIDATION_ERROR", "Malformed request body", meta.id, { body: "is not valid JSON" }));
    case "NOT_FOUND": {
      // the path exists with other methods: 405 and the ones it takes
      const methods = allowed?.(new URL(request.url).pathname) ?? [];
      if (methods.length && !methods.includes(request.method))
        return json(405, failureBody("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${methods.join(", ")}`, meta.id), { allow: methods.join(", ") });
      return json(404, failureBody("NOT_FOUND", "Route not found", meta.id));
    }
    case "INVALID_COOKIE_SIGNATURE":
      return json(400, failureBody("VALIDATION_ERROR", "Invalid cookie", meta.id, { cookie: "has an invalid signature" }));
  }
  // a write the disk refused makes the server unready at once (it clears with the next write that goes through)
  health?.failed(REQUEST, error, log);
  log.error("unhandled error", { requestId: meta.id, method: request.method, path: new URL(request.url).pathname, err: error });
  return json(500, failureBody("INTERNAL_ERROR", ERROR_CODES.INTERNAL_ERROR.message, meta.id));
}

/**
 * Maps every error to the failure envelope; nothing leaks a stack. The hook is short, its work
 * in failureOf: Elysia reads a hook's source at start and for every route it composes (see
 * corePlugin).
 */
export function errorsPlugin(log: Logger, health?: WriteHealth, allowed?: AllowedMethods) {
  return new Elysia({ name: "parley-errors" }).onError({ as: "global" }, ({ code, error, request, set }) => {
    const failure = failureOf(log, health, allowed, code, error, request, set);
    return failure;
  });
}

/** Keeps CORS headers that were set before the error. */
function corsHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.startsWith("access-control-") || k === "vary") out[k] = String(v);
  return out;
}
