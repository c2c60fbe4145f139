import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { AuthContext } from "../../auth/context.ts";
import { ok } from "../../http/envelope.ts";
import { mediaIdParams, uploadBody, type UploadBody } from "./model.ts";
import { commitMedia, getMediaRow, mediaView, prepareMedia } from "./service.ts";
import { mediaStorage } from "./storage/index.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { mediaDoc } from "../docs/schemas.ts";
import type { RoutedApp } from "../../http/routed-app.ts";

/** Content-Disposition with an ASCII fallback and the RFC 5987 UTF-8 name. */
function disposition(filename: string | null): string {
  if (!filename) return "attachment";
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

const tags = ["media"];

// spread into each route: Elysia merges the guard's security into the detail object it is given
const UPLOAD_DOC = {
  summary: "Upload a media file (multipart field `file`; optional `type` applies that message type's cap)",
  description: "Caps: image 5 MB, audio and video 16 MB, document 100 MB. The MIME type is read from the file's bytes.",
  responses: envelopeResponses({ status: 201, data: mediaDoc }),
};

// the file itself, not the envelope, with the type read from its bytes at upload (text formats
// as declared; application/octet-stream when unknown)
const FILE = { schema: { type: "string" as const, format: "binary" } };
const DOWNLOAD_RESPONSES = {
  200: {
    description: "The file, with its MIME type (Content-Type) and its name (Content-Disposition: attachment)",
    content: { "image/*": FILE, "audio/*": FILE, "video/*": FILE, "application/*": FILE, "text/*": FILE },
  },
};

/** The two handlers, shared by the JWT and the API-key prefixes. */
function mediaHandlers(deps: AppDeps) {
  return {
    async upload(auth: AuthContext, body: UploadBody, set: { status?: number | string }) {
      const bytes = new Uint8Array(await body.file.arrayBuffer());
      const prepared = await prepareMedia(
        deps,
        auth.workspaceId,
        { bytes, declaredMime: body.file.type, filename: body.file.name, source: "upload" },
        { kind: body.type ?? "document", field: "file" },
      );
      const row = await commitMedia(deps, prepared);
      set.status = 201;
      return ok(mediaView(row));
    },
    async download(auth: AuthContext, id: string) {
      const row = await getMediaRow(deps, auth.workspaceId, id);
      const file = await mediaStorage(deps.config).open(auth.workspaceId, row.id);
      if (!file) throw errors.notFound("Media");
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
  };
}

/**
 * Media upload (multipart) and authenticated download. An API key (docs/api.md) works only under
 * /api/external and a JWT never there, so the same routes exist under both prefixes.
 */
export function mediaRoutes(deps: AppDeps) {
  const h = mediaHandlers(deps);
  return (app: RoutedApp) => app
    .post("/api/v1/media", ({ auth, body, set }) => h.upload(auth, body, set), { jwt: "messaging", body: uploadBody, detail: { tags, ...UPLOAD_DOC, operationId: "uploadMedia" } })
    .get("/api/v1/media/:id", ({ auth, params }) => h.download(auth, params.id), {
      jwt: "read",
      params: mediaIdParams,
      detail: { tags, summary: "Download a media file (the dashboard's JWT; same workspace only)", responses: DOWNLOAD_RESPONSES },
    })
    .post("/api/external/media", ({ auth, body, set }) => h.upload(auth, body, set), { apiKey: "messaging", body: uploadBody, detail: { tags, ...UPLOAD_DOC, operationId: "uploadExternalMedia" } })
    .get("/api/external/media/:id", ({ auth, params }) => h.download(auth, params.id), {
      apiKey: "read",
      params: mediaIdParams,
      detail: { tags, summary: "Download a media file (API key; same workspace only): the mediaUrl of events", responses: DOWNLOAD_RESPONSES },
    });
}
