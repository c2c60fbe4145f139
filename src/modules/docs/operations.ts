import { envelopeResponses, errorResponse, type ErrorStatus } from "../../http/openapi.ts";

interface Operation {
  requestBody?: unknown;
  parameters?: { name: string; in: string; description?: string }[];
  security?: unknown[];
  responses?: Record<string, unknown>;
}

const capitalize = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** The operationId @elysiajs/openapi makes up (`postApiV1ChatappByIdConnect`): replaced unless a route chose its own. */
export function elysiaOperationId(method: string, path: string): string {
  let id = method.toLowerCase();
  if (!path || path === "/") return id + "Index";
  for (const part of path.split("/")) id += part.includes(":") ? "By" + capitalize(part.replace(":", "")) : capitalize(part);
  return id.replace(/\?/g, "Optional");
}

const isPlural = (w: string) => /[^su]s$/.test(w) || /ies$/.test(w);
const singular = (w: string) => (/ies$/.test(w) ? w.slice(0, -3) + "y" : isPlural(w) ? w.slice(0, -1) : w);

/**
 * A readable, stable operationId from method and path: `sessionsConnect`, `messagesSend`,
 * `listSessions`, `getSession`, `createWebhook`, `deleteTeamMember`, `listExternalMessages`.
 * `/api` and `/v1` are dropped; `chatapp` reads `sessions`. `hasGet`: the path also has a GET
 * (a POST there creates).
 */
export function cleanOperationId(method: string, path: string, hasGet: boolean): string {
  const segments = path.split("/").filter(Boolean);
  const lastIsParam = segments.at(-1)?.startsWith("{") ?? false;
  const words = segments
    .filter((s) => !s.startsWith("{") && s !== "api" && s !== "v1")
    .map((s) => (s === "chatapp" ? "sessions" : s))
    .flatMap((s) => s.split(/[-_.]/))
    .filter(Boolean);
  if (!words.length) words.push("index");
  const last = words.length - 1;
  let verb = "";
  if (lastIsParam) {
    verb = ({ get: "get", put: "update", patch: "update", delete: "delete" } as Record<string, string>)[method] ?? "";
    words[last] = singular(words[last]!);
  } else if (method === "get") {
    if (isPlural(words[last]!)) verb = "list";
  } else if (method === "post") {
    if (hasGet) {
      verb = "create";
      words[last] = singular(words[last]!);
    }
  } else if (method === "put" || method === "patch") verb = "update";
  else if (method === "delete") verb = "delete";
  const parts = verb ? [verb, ...words] : words;
  return parts.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : capitalize(w))).join("");
}

/**
 * Completes an operation's responses: a 200 envelope when it declares no success (paginated
 * when it takes page or cursor parameters), the error statuses its shape implies, and
 * `default` (any other failure, e.g. 409 or 502) in the failure envelope.
 */
export function fillResponses(op: Operation, path: string): void {
  const responses = (op.responses ??= {});
  const params = op.parameters ?? [];
  const query = new Set(params.filter((p) => p.in === "query").map((p) => p.name));
  if (!Object.keys(responses).some((s) => /^2\d\d$/.test(s))) {
    // cursors win: a keyset list may take `page` too (only page 1)
    Object.assign(responses, envelopeResponses({ list: query.has("before") || query.has("after") ? "cursor" : query.has("page") ? "page" : undefined }));
  }
  const errors: ErrorStatus[] = [];
  if (op.requestBody || params.length) errors.push(400);
  if (op.requestBody) errors.push(413);
  if (op.security?.length) errors.push(401, 403);
  if (path.includes("{")) errors.push(404);
  if (path.startsWith("/api/")) errors.push(429);
  for (const e of errors) responses[e] ??= errorResponse(e);
  responses.default ??= { ...errorResponse(500), description: "Any other failure, in the failure envelope" };
}

/**
 * Adds `null` to the `enum` of every nullable schema in `node` (OpenAPI 3.0 checks `enum`
 * before `nullable`, so a nullable enum without it refuses null); returns `node`.
 */
export function nullableEnums<T>(node: T): T {
  if (Array.isArray(node)) for (const item of node) nullableEnums(item);
  else if (node && typeof node === "object") {
    const o = node as Record<string, unknown>;
    if (o.nullable === true && Array.isArray(o.enum) && !o.enum.includes(null)) o.enum.push(null);
    for (const v of Object.values(o)) nullableEnums(v);
  }
  return node;
}

const PAGING_TEXT: Record<"page" | "cursor" | "either", Record<string, string>> = {
  page: {
    page: "Page number, from 1 (default 1)",
    limit: "Items per page, 1 to 100 (default 20)",
  },
  cursor: {
    before: "An item id (pagination.nextCursor): the page of items older than it. Not with `after`.",
    after: "An item id (pagination.prevCursor): the items newer than it. Not with `before`.",
    limit: "Items per page, 1 to 100 (default 20)",
    page: "Only 1: this list is read with the before/after cursors, newest first, and has no total",
  },
  either: {
    page: "Page number, from 1 (default 1); only 1 with `before` or `after`",
    limit: "Items per page, 1 to 100 (default 20)",
    before: "A delivery id (pagination.nextCursor): switches to keyset paging, the page of entries older than it. Not with `after`.",
    after: "A delivery id (pagination.prevCursor): switches to keyset paging, the entries newer than it. Not with `before`.",
  },
};

/** Describes the paging parameters of a list by the paging its answer documents (numbered pages, keyset cursors or either). */
export function describePaging(op: Operation): void {
  const ok = (op.responses?.["200"] as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content?.["application/json"];
  const pagination = JSON.stringify(ok?.schema?.properties?.pagination ?? null);
  const page = pagination.includes("PagePagination");
  const cursor = pagination.includes("CursorPagination");
  if (!page && !cursor) return;
  const text = PAGING_TEXT[page && cursor ? "either" : cursor ? "cursor" : "page"];
  for (const p of op.parameters ?? []) if (p.in === "query" && !p.description && text[p.name]) p.description = text[p.name];
}
