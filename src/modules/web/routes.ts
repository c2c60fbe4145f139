import { Elysia } from "elysia";
import { errors } from "../../errors.ts";
import { pageHeaders } from "./csp.ts";
import { embeddedWeb } from "./embedded.macro.ts" with { type: "macro" };
import type { WebAssets } from "../../../web/build.ts";

// null when running from source: the dashboard is then built on its first request. The macro
// call sits in a function: its string literals (the whole dashboard, 650 KB as a JavaScript
// string) are made when the dashboard is first asked for, not by every start of the binary
function embedded(): WebAssets | null {
  return embeddedWeb();
}
let loading: Promise<WebAssets> | null = null;

function assets(): Promise<WebAssets> {
  if (loading) return loading;
  const inBinary = embedded();
  if (inBinary) return (loading = Promise.resolve(inBinary));
  loading = import("../../../web/build.ts")
    .then((m) => m.buildWeb())
    .catch((e: unknown) => {
      loading = null; // a fixed source builds on the next request
      throw e;
    });
  return loading;
}

const ASSET_TYPES = { "app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8" } as const;

async function index(request: Request): Promise<Response> {
  const a = await assets();
  return new Response(a.html, { headers: pageHeaders(request.headers.get("host")) });
}

/**
 * The dashboard (docs/dashboard.md): GET / leads to /app/, every path under /app/ that is not an asset answers
 * the single page (the client routes it). Nothing outside /app is taken, so /api, /docs and the
 * mail pages are never shadowed.
 */
export function webRoutes() {
  return new Elysia({ name: "parley-web" })
    .get("/", ({ redirect }) => redirect("/app/", 302), { detail: { hide: true } })
    .get(
      "/app/assets/:file",
      async ({ params }) => {
        const type = ASSET_TYPES[params.file as keyof typeof ASSET_TYPES];
        if (!type) throw errors.notFound("asset");
        const a = await assets();
        const body = params.file === "app.js" ? a.js : a.css;
        return new Response(body, {
          headers: { "content-type": type, "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" },
        });
      },
      { detail: { hide: true } },
    )
    // Elysia matches "/app/" here too (trailing slashes are not strict)
    .get("/app", ({ request }) => index(request), { detail: { hide: true } })
    .get("/app/*", ({ request }) => index(request), { detail: { hide: true } });
}
