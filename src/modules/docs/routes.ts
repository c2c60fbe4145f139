import type { AnyElysia } from "elysia";
import type { z } from "zod";
import {
  CURSOR_PAGINATION,
  cursorPaginationSchema,
  ERROR_ENVELOPE,
  ERROR_RESPONSE_NAMES,
  errorEnvelopeSchema,
  errorResponse,
  errorResponseComponents,
  type ErrorStatus,
  PAGE_PAGINATION,
  pagePaginationSchema,
  zodToOpenApi,
} from "../../http/openapi.ts";
import { webhookDeliveryCallback, webhookPayloadSchemas } from "../webhooks/docs.ts";
import { cleanOperationId, describePaging, elysiaOperationId, fillResponses, nullableEnums } from "./operations.ts";

const ASSET_JS = "/docs/assets/swagger-ui-bundle.js";
const ASSET_CSS = "/docs/assets/swagger-ui.css";
const ASSET_INIT = "/docs/assets/init.js";
const HIDDEN = [ASSET_JS, ASSET_CSS, ASSET_INIT, "/docs", "/openapi.json"];

// no inline script (the start-up call is a file of its own); Swagger UI sets inline styles
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
const INIT_JS = 'window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });\n';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley API</title><link rel="stylesheet" href="${ASSET_CSS}"></head>
<body><div id="swagger-ui"></div><script src="${ASSET_JS}"></script><script src="${ASSET_INIT}"></script>
</body></html>`;

type Operation = {
  operationId?: string;
  requestBody?: { content?: Record<string, unknown>; required?: boolean };
  parameters?: { name: string; in: string }[];
  security?: unknown[];
  responses?: Record<string, unknown>;
  callbacks?: Record<string, unknown>;
};

const DESCRIPTION = [
  "Multi-tenant messaging platform.",
  "",
  "Every JSON answer is an envelope: `{ success: true, data?, message?, pagination? }`, or on failure " +
    "`{ success: false, code, message, errors?, requestId }` (`errors` maps dotted field paths to messages).",
  "",
  "Credentials: the dashboard's JWT as `Authorization: Bearer ACCESS_TOKEN` (from POST /api/auth/login) under /api/auth, " +
    "/api/v1, /api/team, /api/webhooks and the others; an API key as `X-API-Key: pk_...` only under /api/external.",
  "",
  "Real-time events: a WebSocket at `GET /api/ws?token=ACCESS_TOKEN` (or the `Sec-WebSocket-Protocol` values `bearer`, `ACCESS_TOKEN`) " +
    "sends `{ event, timestamp, data }` for the token's workspace only: the webhook events (their bodies are in this document's " +
    "`WebhookPayload_*` schemas) plus `session_qr` and `session_status`.",
  "",
  "Webhook deliveries are described by the `delivery` callback of POST /api/webhooks: one body per event and the signature headers.",
].join("\n");

const FAILURE = "Failure";
const FAILURE_RESPONSE = { ...errorResponse(500), description: "Any other failure, in the failure envelope" };
const canonical = new Map<string, string>();

/** Failure responses that are the shared ones become references to components.responses (the document is half the size). */
function shareErrorResponses(op: Operation): void {
  if (!canonical.size) {
    for (const [status, name] of Object.entries(ERROR_RESPONSE_NAMES)) canonical.set(JSON.stringify(errorResponse(Number(status) as ErrorStatus)), name);
    canonical.set(JSON.stringify(FAILURE_RESPONSE), FAILURE);
  }
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const name = canonical.get(JSON.stringify(response));
    if (name) op.responses![status] = { $ref: `#/components/responses/${name}` };
  }
}

/**
 * Builds the OpenAPI 3.0 document of every route of `root`. Request bodies are filled from the
 * routes' zod schemas (the global body parser hides them from the generator; a File field makes
 * the body multipart/form-data); every operation gets its responses in the envelope (the ones
 * a route declares with `envelopeResponses`, plus what can be inferred) and a clean operationId.
 */
export async function openApiDocument(root: AnyElysia, version: string) {
  // imported on the first /openapi.json: the generator is not loaded at start (issue 13). A
  // dynamic import, not a require: a require reached the package's CommonJS build, which brought
  // CommonJS copies of Elysia and TypeBox (1.2 MB) into the chunks every start loads
  const { toOpenAPISchema } = await import("@elysiajs/openapi");
  const { paths, components } = toOpenAPISchema(root, { paths: HIDDEN }, undefined, { zod: zodToOpenApi }, "3.0.3") as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas?: Record<string, unknown> };
  };
  // WebSocket routes are not HTTP operations; /api/ws is described in the document's description
  for (const ops of Object.values(paths)) delete (ops as Record<string, unknown>).ws;
  for (const [path, ops] of Object.entries(paths)) if (!Object.keys(ops).length) delete paths[path];
  for (const route of root.routes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const method = route.method.toLowerCase();
    const op = paths[path]?.[method];
    if (!op) continue;
    if (op.operationId === elysiaOperationId(route.method, route.path)) op.operationId = cleanOperationId(method, path, Boolean(paths[path]?.get));
    const body = (route.hooks as { body?: unknown } | undefined)?.body;
    if (!body || typeof body !== "object" || !("~standard" in body)) continue;
    const schema = zodToOpenApi(body as z.ZodType);
    const isUpload = JSON.stringify(schema).includes('"format":"binary"');
    // an upload is always multipart, whatever the generator guessed
    if (!isUpload && op.requestBody?.content && Object.keys(op.requestBody.content).length) continue;
    op.requestBody = { required: true, content: { [isUpload ? "multipart/form-data" : "application/json"]: { schema } } };
  }
  const seen = new Map<string, number>();
  for (const [path, ops] of Object.entries(paths))
    for (const [method, op] of Object.entries(ops)) {
      fillResponses(op, path);
      describePaging(op);
      shareErrorResponses(op);
      // no credential: said outright, or readers (and linters) cannot tell public from forgotten
      if (!op.security?.length) op.security = [];
      // ids stay unique whatever routes are added later
      const id = op.operationId ?? cleanOperationId(method, path, Boolean(ops.get));
      const n = seen.get(id) ?? 0;
      seen.set(id, n + 1);
      op.operationId = n ? `${id}${n + 1}` : id;
    }
  const createWebhook = paths["/api/webhooks"]?.post;
  if (createWebhook) createWebhook.callbacks = { delivery: webhookDeliveryCallback() };
  const doc = {
    openapi: "3.0.3",
    info: { title: "Parley API", version, description: DESCRIPTION },
    // relative: the document describes the server that serves it, whatever its public address
    servers: [{ url: "/", description: "The Parley server that serves this document" }],
    components: {
      ...components,
      responses: { ...errorResponseComponents(), [FAILURE]: FAILURE_RESPONSE },
      schemas: {
        ...components.schemas,
        [ERROR_ENVELOPE]: errorEnvelopeSchema,
        [PAGE_PAGINATION]: pagePaginationSchema,
        [CURSOR_PAGINATION]: cursorPaginationSchema,
        ...webhookPayloadSchemas(),
      },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
      },
    },
    paths,
  };
  // a JSON round trip: drops the lazy getters and shares nothing with the routes' declarations
  return nullableEnums(JSON.parse(JSON.stringify(doc)));
}

/** GET /openapi.json (OpenAPI 3.0) and the /docs page, served from embedded assets (loaded on first use). */
export function docsRoutes(version: string) {
  let cached: { routes: number; doc: unknown } | null = null;
  return (root: AnyElysia) =>
    root
      .get(ASSET_JS, async () => new Response((await import("./assets.ts")).swaggerJs, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
        detail: { hide: true },
      })
      .get(ASSET_CSS, async () => new Response((await import("./assets.ts")).swaggerCss, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
        detail: { hide: true },
      })
      .get(ASSET_INIT, () => new Response(INIT_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
        detail: { hide: true },
      })
      .get("/docs", () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP } }), { detail: { hide: true } })
      .get(
        "/openapi.json",
        async () => {
          if (!cached || cached.routes !== root.routes.length) cached = { routes: root.routes.length, doc: await openApiDocument(root, version) };
          return cached.doc;
        },
        { detail: { hide: true } },
      );
}
