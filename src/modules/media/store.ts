import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** Where the bytes of a media row live. Ids are UUIDs, so no path tricks are possible. */
export function mediaPath(dataDir: string, workspaceId: string, id: string): string {
  return join(dataDir, "media", workspaceId, id);
}

/** Writes the bytes of a new media row. */
export async function writeMediaFile(dataDir: string, workspaceId: string, id: string, bytes: Uint8Array): Promise<void> {
  await mkdir(join(dataDir, "media", workspaceId), { recursive: true, mode: 0o700 });
  await Bun.write(mediaPath(dataDir, workspaceId, id), bytes);
}

/** Reads the bytes of a media row. */
export async function readMediaFile(dataDir: string, workspaceId: string, id: string): Promise<Uint8Array> {
  return await Bun.file(mediaPath(dataDir, workspaceId, id)).bytes();
}

/** Removes a file whose row was never committed. */
export async function removeMediaFile(dataDir: string, workspaceId: string, id: string): Promise<void> {
  await rm(mediaPath(dataDir, workspaceId, id), { force: true });
}
