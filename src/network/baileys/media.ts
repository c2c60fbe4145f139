import { mkdir, writeFile } from "node:fs/promises";
import { extname, join } from "node:path";
import type { OutboundMessage } from "../driver.ts";

const EXT: Record<string, string> = {
  "image/jpeg": ".jpg",
  "image/png": ".png",
  "image/webp": ".webp",
  "video/mp4": ".mp4",
  "audio/ogg": ".ogg",
  "audio/mpeg": ".mp3",
  "audio/mp4": ".m4a",
  "application/pdf": ".pdf",
};

/** Where an inbound media file goes: `<dataDir>/media/<sessionId>/<messageId><ext>`. */
export function mediaPathFor(dataDir: string, sessionId: string, networkMessageId: string, mimeType: string, filename?: string): string {
  const base = mimeType.split(";")[0]!.trim().toLowerCase();
  const fromName = filename ? extname(filename).toLowerCase() : "";
  const ext = EXT[base] ?? (/^\.[a-z0-9]{1,8}$/.test(fromName) ? fromName : ".bin");
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_");
  return join(dataDir, "media", safe(sessionId), safe(networkMessageId) + ext);
}

/** Writes downloaded media under the data dir (owner-only permissions). */
export async function saveMedia(path: string, data: Uint8Array): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
  await writeFile(path, data, { mode: 0o600 });
}

/** The content baileys' `sendMessage` takes for an outbound message. */
export function outboundContent(m: OutboundMessage): Record<string, unknown> {
  if (m.type === "text" || !m.media) return { text: m.text ?? "" };
  const data = Buffer.from(m.media.data);
  const mimetype = m.media.mimeType;
  // a given (empty) thumbnail keeps baileys from computing one with optional image libraries
  switch (m.type) {
    case "image":
      return { image: data, mimetype, caption: m.text, jpegThumbnail: "" };
    case "video":
      return { video: data, mimetype, caption: m.text, jpegThumbnail: "" };
    case "audio":
      return { audio: data, mimetype };
    case "document":
      return { document: data, mimetype, fileName: m.media.filename ?? "document", caption: m.text };
  }
}
