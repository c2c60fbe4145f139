import { isMediaKind } from "./rich-types.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { fetchMediaUrl } from "../media/fetch.ts";
import { formatBytes, MEDIA_CAPS, type MediaKind } from "../media/model.ts";
import { checkMedia, getMediaRow, prepareMedia, type PreparedMedia } from "../media/service.ts";
import type { SendBody } from "./model.ts";

/** The media of a send request: an existing row, or a file written whose row is not committed yet. */
export type SendMedia = { mediaId: string; prepared: PreparedMedia | null };

const DATA_URI = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w-]+=[^;,]*)*;base64,/i;

/** Decodes the `media` field (base64, or a data: URI), refusing what is not base64. */
function decodeBase64(raw: string, cap: number, kind: MediaKind): { bytes: Uint8Array; declared: string | null } {
  const m = raw.match(DATA_URI);
  const declared = m?.[1] ?? null;
  const text = (m ? raw.slice(m[0].length) : raw).replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) throw errors.validation({ media: "is not valid base64" });
  if (Math.floor((text.length * 3) / 4) - 2 > cap) throw errors.validation({ media: `is larger than ${formatBytes(cap)}, the cap for ${kind} files` });
  return { bytes: new Uint8Array(Buffer.from(text, "base64")), declared };
}

/** Resolves and checks the media of a send request (size cap and sniffed MIME type per docs/messages.md). */
export async function resolveSendMedia(deps: Pick<AppDeps, "db" | "config" | "clock">, workspaceId: string, input: SendBody): Promise<SendMedia | null> {
  if (!isMediaKind(input.type)) return null;
  const kind = input.type;
  if (input.mediaId) {
    const row = await getMediaRow(deps, workspaceId, input.mediaId);
    checkMedia(row.size, row.mimeType, { kind, field: "mediaId" });
    return { mediaId: row.id, prepared: null };
  }
  if (input.media !== undefined) {
    const { bytes, declared } = decodeBase64(input.media, MEDIA_CAPS[kind], kind);
    const prepared = await prepareMedia(
      deps,
      workspaceId,
      { bytes, declaredMime: input.mimeType ?? declared, filename: input.filename, source: "base64" },
      { kind, field: "media" },
    );
    return { mediaId: prepared.row.id, prepared };
  }
  const fetched = await fetchMediaUrl(deps, input.mediaUrl!, kind);
  const prepared = await prepareMedia(
    deps,
    workspaceId,
    { bytes: fetched.bytes, declaredMime: fetched.declaredMime ?? input.mimeType, filename: input.filename ?? fetched.filename, source: "url" },
    { kind, field: "mediaUrl" },
  );
  return { mediaId: prepared.row.id, prepared };
}
