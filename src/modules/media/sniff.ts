const GENERIC = "application/octet-stream";
/** Declared types we can't confirm from magic bytes (plain-text formats), taken at their word. */
const TEXTUAL = /^(text\/[\w.+-]+|application\/(json|xml|csv|rtf|x-ndjson))$/;

/**
 * The MIME type of some bytes, read from their signature (magic bytes); the client's
 * declared type is believed only for text formats, which have no signature.
 */
export async function sniffMime(bytes: Uint8Array, declared?: string | null): Promise<string> {
  // loaded with the first upload, not at start (cold start, issue 13)
  const { fileTypeFromBuffer } = await import("file-type");
  const found = await fileTypeFromBuffer(bytes);
  if (found) return found.mime;
  const d = declared?.split(";")[0]?.trim().toLowerCase();
  if (d && TEXTUAL.test(d)) return d;
  return GENERIC;
}
