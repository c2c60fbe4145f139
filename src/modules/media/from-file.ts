import { nodeFsPromises } from "../../node/lazy.ts";
import type { AppDeps } from "../../deps.ts";
import { cleanFilename, type MediaSource, type PreparedMedia } from "./service.ts";
import { sniffMime } from "./sniff.ts";
import { mediaStorage } from "./storage/index.ts";

/** Bytes read to recognise a file's type (file-type needs at most a few KB for every format it knows). */
const SNIFF_BYTES = 64 * 1024;

/**
 * `prepareMedia` for a file a driver streamed to disk (inbound media): the file is hashed as a
 * stream and moved into the media storage (renamed into a directory on the same filesystem,
 * copied to another one, uploaded to S3), never read into memory whole. Drivers write under
 * `<dataDir>/media/.incoming`. On failure it is removed.
 */
export async function prepareMediaFile(
  deps: Pick<AppDeps, "config" | "clock">,
  workspaceId: string,
  input: { file: string; size: number; declaredMime?: string | null; filename?: string | null; source: MediaSource },
): Promise<PreparedMedia> {
  try {
    const f = Bun.file(input.file);
    const mimeType = await sniffMime(await f.slice(0, SNIFF_BYTES).bytes(), input.declaredMime);
    const hasher = new Bun.CryptoHasher("sha256");
    for await (const chunk of f.stream()) hasher.update(chunk);
    const id = Bun.randomUUIDv7();
    await mediaStorage(deps.config).adopt(workspaceId, id, input.file);
    return {
      workspaceId,
      row: { id, mimeType, size: input.size, filename: cleanFilename(input.filename), sha256: hasher.digest("hex"), source: input.source, createdAt: deps.clock.now().getTime() },
    };
  } catch (err) {
    await nodeFsPromises().rm(input.file, { force: true }).catch(() => {});
    throw err;
  }
}
