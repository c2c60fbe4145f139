import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AppDeps } from "../../deps.ts";
import { cleanFilename, type MediaSource, type PreparedMedia } from "./service.ts";
import { sniffMime } from "./sniff.ts";
import { mediaPath } from "./store.ts";

/** Bytes read to recognise a file's type (file-type needs at most a few KB for every format it knows). */
const SNIFF_BYTES = 64 * 1024;

/**
 * `prepareMedia` for a file a driver streamed to disk (inbound media): the file is hashed as a
 * stream and moved into place, never read into memory whole. The file must be on the data
 * dir's filesystem (drivers write under `<dataDir>/media/.incoming`). On failure it is removed.
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
    await mkdir(join(deps.config.dataDir, "media", workspaceId), { recursive: true, mode: 0o700 });
    await rename(input.file, mediaPath(deps.config.dataDir, workspaceId, id));
    return {
      workspaceId,
      row: { id, mimeType, size: input.size, filename: cleanFilename(input.filename), sha256: hasher.digest("hex"), source: input.source, createdAt: deps.clock.now().getTime() },
    };
  } catch (err) {
    await rm(input.file, { force: true }).catch(() => {});
    throw err;
  }
}
