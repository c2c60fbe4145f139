import { errors } from "../../errors.ts";
import { pageHeaders } from "./csp.ts";
import { CompressedAsset } from "./compressed.ts";
import { embeddedWeb } from "./embedded.macro.ts" with { type: "macro" };
import type { WebAssets } from "../../../web/build.ts";
import type { RoutedApp } from "../../http/routed-app.ts";

// null when running from source: the dashboard is then built on its first request. The macro
// call sits in a function: its string literals (the whole dashboard, 650 KB as a JavaScript
// string) are made when the dashboard is first asked for, not by every start of the binary
function embedded(): WebAssets | null {
  return embeddedWeb();
}
type Served = Record<keyof WebAssets, CompressedAsset>;
let loading: Promise<Served> | null = null;

/** The dashboard's files, each with its gzip and brotli forms made once (on its first request). */
const served = (a: WebAssets): Served => ({ html: new CompressedAsset(a.html), js: new CompressedAsset(a.js), css: new CompressedAsset(a.css) });

function assets(): Promise<Served> {
  if (loading) return loading;
  const inBinary = embedded();
  if (inBinary) return (loading = Promise.resolve(served(inBinary)));
  loading = import("../../../web/build.ts")
    .then((m) => m.buildWeb())
    .then(served)
    .catch((e: unknown) => {
      loading = null; // a fixed source builds on the next request
      throw e;
    });
  return loading;
}

const ASSET_TYPES = { "app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8" } as const;

async function index(request: Request): Promise<Response> {
  const a = await assets();
  return a.html.respond(request, pageHeaders(request.headers.get("host")));
}

/**
 * The dashboard (docs/dashboard.md): GET / leads to /app/, every path under /app/ that is not an asset answers
 * the single page (the client routes it). Nothing outside /app is taken, so /api, /docs and the
 * mail pages are never shadowed.
 */
export function webRoutes() {
  return (app: RoutedApp) => app
    .get("/", ({ redirect }) => redirect("/app/", 302), { detail: { hide: true } })
    .get(
      "/app/assets/:file",
      async ({ params, request }) => {
        const type = ASSET_TYPES[params.file as keyof typeof ASSET_TYPES];
        if (!type) throw errors.notFound("asset");
        const a = await assets();
        // the page names them with a version in the query string: cached for good, sent compressed
        return (params.file === "app.js" ? a.js : a.css).respond(request, {
          "content-type": type,
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
        });
      },
      { detail: { hide: true } },
    )
    // Elysia matches "/app/" here too (trailing slashes are not strict)
    .get("/app", ({ request }) => index(request), { detail: { hide: true } })
    .get("/app/*", ({ request }) => index(request), { detail: { hide: true } });
}
