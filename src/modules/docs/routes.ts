import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { z } from "zod";
// embedded in the binary: the docs page needs no internet access
import swaggerJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "text" };

const ASSET_JS = "/docs/assets/swagger-ui-bundle.js";
const ASSET_CSS = "/docs/assets/swagger-ui.css";

/** Turns a zod schema into the OpenAPI 3.0 flavour of JSON Schema. */
function zodToOpenApi(schema: z.ZodType) {
  return z.toJSONSchema(schema, { target: "openapi-3.0", io: "input", unrepresentable: "any" });
}

/** GET /openapi.json (OpenAPI 3.0) and the /docs page, served from embedded assets. */
export function docsRoutes(version: string) {
  return new Elysia()
    .get(ASSET_JS, () => new Response(swaggerJs, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .get(ASSET_CSS, () => new Response(swaggerCss, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        provider: "swagger-ui",
        openapiVersion: "3.0.3",
        mapJsonSchema: { zod: zodToOpenApi },
        swagger: { cdn: ASSET_JS, theme: ASSET_CSS, autoDarkMode: false },
        documentation: {
          info: { title: "Parley API", version, description: "Multi-tenant messaging platform. Envelope: { success, data?, message?, pagination? }." },
          components: {
            securitySchemes: {
              bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
              apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
            },
          },
        },
        exclude: { paths: [ASSET_JS, ASSET_CSS] },
      }),
    );
}
