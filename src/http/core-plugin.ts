import { Elysia } from "elysia";
import type { Config } from "../config.ts";
import { errors } from "../errors.ts";
import type { Logger } from "../log.ts";
import { jsonTooDeep, MAX_JSON_DEPTH } from "./json-depth.ts";
import { parseMultipartCapped } from "./multipart.ts";
import { parsedText } from "./raw-body.ts";
import { beginRequest, requestMeta } from "./request-meta.ts";

const utf8 = new TextDecoder();

/** Reads a request body as text, refusing past `limit` bytes even without Content-Length. */
export async function readCapped(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > limit) throw errors.tooLarge(limit);
  if (!request.body) return "";
  // a declared size within the cap, not chunked: read at once (a reader loop costs ~10% of a send's CPU);
  // the size is still checked after, for a Request made in-process whose header says less than its body
  if (declared >= 0 && !request.headers.has("transfer-encoding")) {
    const bytes = await request.arrayBuffer();
    if (bytes.byteLength > limit) throw errors.tooLarge(limit);
    return utf8.decode(bytes);
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw errors.tooLarge(limit);
    }
    chunks.push(value);
  }
  return utf8.decode(Buffer.concat(chunks));
}

const MEDIA_TYPES = /^multipart\/form-data/;
/**
 * The routes that take media (the body cap's exception, docs/api.md): uploads, sends with base64
 * media, the contacts CSV import. Only these get `mediaBodyLimit`; on any other route a body of
 * any type (multipart included: it is buffered whole before the route's guard runs) is capped
 * at `jsonBodyLimit`, so an anonymous client cannot make the login route hold 110 MB.
 */
export const MEDIA_ROUTES = /^\/api\/(?:v1|external)\/(?:media|messages\/send|contacts\/import)\/?$/;

/** The body cap of a request: the media routes take `mediaBodyLimit`, every other route `jsonBodyLimit`. */
function bodyLimit(config: Config, path: string): number {
  return MEDIA_ROUTES.test(path) ? config.mediaBodyLimit : config.jsonBodyLimit;
}

const pathOf = (request: Request) => new URL(request.url).pathname;

/**
 * Elysia JSON-parses a query value that starts with `[` or `{` and echoes it, pretty-printed,
 * in a validation error: 14 KB of brackets cost 150 ms and 150 MB. Such values get the body's
 * depth limit, each on its own (a quote in one value cannot hide the brackets of the next).
 */
function refuseDeepQuery(url: string): void {
  const q = url.indexOf("?");
  if (q < 0 || url.length - q <= MAX_JSON_DEPTH) return;
  const deep: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
    if ((value.startsWith("[") || value.startsWith("{")) && jsonTooDeep(value)) deep[name] = `nests deeper than ${MAX_JSON_DEPTH} levels`;
  }
  if (Object.keys(deep).length) throw errors.validation(deep, "Query value nested too deeply");
}

/**
 * A query string as names and values: a value is the text sent (commas, brackets and all), a
 * name given more than once a list of them. No prototype: `?__proto__=x` is a name like any other.
 */
export function plainQuery(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(search)) {
    const prev = out[name];
    out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

/** The request's id and CORS headers (a preflight answered here), the deep-query and declared-size checks. */
function beginCore(config: Config, allowed: Set<string>, smallestLimit: number, request: Request, set: { headers: Record<string, unknown> }): Response | undefined {
  const meta = beginRequest(request);
  set.headers["x-request-id"] = meta.id;
  const origin = request.headers.get("origin");
  if (origin && allowed.has(origin) && !pathOf(request).startsWith("/api/external")) {
    set.headers["access-control-allow-origin"] = origin;
    set.headers["access-control-allow-credentials"] = "true";
    set.headers["vary"] = "Origin";
    if (request.method === "OPTIONS") {
      set.headers["access-control-allow-methods"] = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
      set.headers["access-control-allow-headers"] =
        request.headers.get("access-control-request-headers") ?? "authorization, content-type, idempotency-key";
      set.headers["access-control-max-age"] = "600";
      meta.status = 204;
      return new Response(null, { status: 204, headers: set.headers as Record<string, string> });
    }
  }
  refuseDeepQuery(request.url);
  // every declared size is judged here, inside the envelope (Bun's own limit is set out of reach)
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > smallestLimit) {
    const limit = bodyLimit(config, pathOf(request));
    if (declared > limit) throw errors.tooLarge(limit);
  }
}

/** A body by its media type (case-insensitive, RFC 9110), within the route's cap. */
async function parseBody(config: Config, request: Request, given: string): Promise<unknown> {
  const contentType = given.toLowerCase();
  const path = pathOf(request);
  const limit = bodyLimit(config, path);
  // the full header: Elysia's `contentType` drops the boundary
  if (MEDIA_TYPES.test(contentType)) return parseMultipartCapped(request, request.headers.get("content-type") ?? contentType, limit);
  const text = await readCapped(request, limit);
  parsedText(request, path, text);
  if (contentType.startsWith("application/json") || contentType.endsWith("+json")) {
    if (text.trim() === "") return undefined;
    if (jsonTooDeep(text)) throw errors.validation({ body: `nests deeper than ${MAX_JSON_DEPTH} levels` }, "JSON body nested too deeply");
    try {
      return JSON.parse(text);
    } catch {
      throw errors.validation({ body: "is not valid JSON" }, "Malformed JSON body");
    }
  }
  if (contentType.startsWith("application/x-www-form-urlencoded")) {
    // `curl -d '{...}'` without a JSON content type: say so instead of "email is required"
    if (/^\s*[[{]/.test(text)) throw errors.validation({ body: "looks like JSON: send it with Content-Type: application/json" }, "JSON body sent as a form");
    return Object.fromEntries(new URLSearchParams(text));
  }
  return text;
}

/** The access log's line of a request (errors always, the rest at info). */
function logRequest(log: Logger, info: boolean, request: Request, set: { status?: number | string }, responseValue: unknown): void {
  const meta = requestMeta(request);
  const status =
    meta.status ?? (responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200);
  if (status < 500 && !info) return;
  const fields = {
    requestId: meta.id,
    method: request.method,
    path: pathOf(request),
    status,
    durationMs: Math.round((performance.now() - meta.start) * 10) / 10,
  };
  if (status >= 500) log.error("request", fields);
  else log.info("request", fields);
}

/**
 * Request id, CORS, body caps and JSON parsing, and the access log.
 * JSON and other bodies are capped at `jsonBodyLimit` (docs/api.md); the media routes (uploads, sends, CSV import) at `mediaBodyLimit`.
 *
 * Each hook is a short function naming the context's parts it reads, its work in a function of
 * its own: Elysia reads a hook's source to learn which parts of the context a request must build
 * (and hashes it again for every route it composes), so a long hook cost every start and every
 * route's first request its length, where the short one says the same. (Elysia also reads a
 * hook's source to guess whether it returns a promise: a hook that is not async neither awaits
 * nor returns a call, so no request awaits it.)
 */
export function corePlugin(config: Config, log: Logger) {
  const allowed = new Set(config.corsOrigins);
  // a declared size at most this passes whatever the path: most requests never parse their URL
  const smallestLimit = Math.min(config.jsonBodyLimit, config.mediaBodyLimit);
  const core = new Elysia({ name: "parley-core" })
    .onRequest(({ request, set }) => {
      const preflight = beginCore(config, allowed, smallestLimit, request, set);
      if (preflight) return preflight;
    })
    // query values as sent: Elysia splits every value with a comma into an array (a search for
    // "Smith, John" was refused as an array, a tag with a comma could not be filtered) and
    // JSON-parses one in brackets; only a repeated name makes a list here
    .onTransform({ as: "global" }, (ctx) => {
      const q = ctx.request.url.indexOf("?");
      if (q >= 0) ctx.query = plainQuery(ctx.request.url.slice(q + 1)) as typeof ctx.query;
    })
    .onParse({ as: "global" }, ({ request, contentType }) => parseBody(config, request, contentType));
  // the access log: with logging off (errors included) no hook at all, not one that formats for nobody
  if (!log.enabled("error")) return core;
  const info = log.enabled("info");
  return core.onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => {
    logRequest(log, info, request, set, responseValue);
  });
}
