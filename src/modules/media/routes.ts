import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { ok } from "../../http/envelope.ts";
import { mediaIdParams, uploadBody } from "./model.ts";
import { commitMedia, getMediaRow, mediaView, prepareMedia } from "./service.ts";
import { mediaPath } from "./store.ts";

/** Content-Disposition with an ASCII fallback and the RFC 5987 UTF-8 name. */
function disposition(filename: string | null): string {
  if (!filename) return "attachment";
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Media upload (multipart) and authenticated download (the `mediaUrl` of inbound events). */
export function mediaRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/api/v1/media", tags: ["media"] })
    .use(authGuard(deps))
    .post(
      "",
      async ({ auth, body, set }) => {
        const bytes = new Uint8Array(await body.file.arrayBuffer());
        const prepared = await prepareMedia(
          deps,
          auth.workspaceId,
          { bytes, declaredMime: body.file.type, filename: body.file.name, source: "upload" },
          { kind: body.type ?? "document", field: "file" },
        );
        const row = deps.sqlite.transaction(() => commitMedia(deps, prepared))();
        set.status = 201;
        return ok(mediaView(row));
      },
      {
        jwtOrApiKey: "messaging",
        body: uploadBody,
        detail: {
          summary: "Upload a media file (multipart field `file`; optional `type` applies that message type's cap)",
          description: "Caps: image 5 MB, audio and video 16 MB, document 100 MB. The MIME type is read from the file's bytes.",
        },
      },
    )
    .get(
      "/:id",
      async ({ auth, params }) => {
        const row = getMediaRow(deps, auth.workspaceId, params.id);
        const file = Bun.file(mediaPath(deps.config.dataDir, auth.workspaceId, row.id));
        if (!(await file.exists())) throw errors.notFound("Media");
        return new Response(file, {
          headers: {
            "content-type": row.mimeType,
            "content-length": String(row.size),
            "content-disposition": disposition(row.filename),
            // user content: never rendered or sniffed as a page of this origin
            "x-content-type-options": "nosniff",
            "content-security-policy": "default-src 'none'; sandbox",
            "cache-control": "private, max-age=3600",
          },
        });
      },
      { jwtOrApiKey: "read", params: mediaIdParams, detail: { summary: "Download a media file (same workspace's JWT or API key)" } },
    );
}
