import { join } from "node:path";
import type { Config } from "../../config.ts";
import { mediaStorage } from "./storage/index.ts";

type StorageConfig = Pick<Config, "dataDir" | "mediaUrl">;

/** Where the bytes of a media row live in the default storage (`<dataDir>/media`, no `mediaUrl`). */
export function mediaPath(dataDir: string, workspaceId: string, id: string): string {
  return join(dataDir, "media", workspaceId, id);
}

/** Writes the bytes of a new media row. */
export async function writeMediaFile(config: StorageConfig, workspaceId: string, id: string, bytes: Uint8Array): Promise<void> {
  await mediaStorage(config).write(workspaceId, id, bytes);
}

/** Reads the bytes of a media row; throws when the file is gone. */
export async function readMediaFile(config: StorageConfig, workspaceId: string, id: string): Promise<Uint8Array> {
  const bytes = await mediaStorage(config).read(workspaceId, id);
  if (!bytes) throw new Error(`media file ${id} is not stored`);
  return bytes;
}

/** Removes a file whose row was never committed. */
export async function removeMediaFile(config: StorageConfig, workspaceId: string, id: string): Promise<void> {
  await mediaStorage(config).remove(workspaceId, id);
}
