import { isAbsolute, join, resolve } from "node:path";
import type { Config } from "../../../config.ts";
import { DirectoryStorage } from "./directory.ts";
import { S3Storage } from "./s3.ts";
import type { MediaStorage } from "./storage.ts";

export type { MediaStorage } from "./storage.ts";

const made = new Map<string, MediaStorage>();

/**
 * The media storage of a configuration (`mediaUrl`): an `s3://` bucket, a directory, or by
 * default `<dataDir>/media`. One instance per location in a process (an S3 client keeps its
 * connections).
 */
export function mediaStorage(config: Pick<Config, "dataDir" | "mediaUrl">): MediaStorage {
  const url = config.mediaUrl;
  const location = url?.startsWith("s3://") ? url : directoryOf(config.dataDir, url);
  let s = made.get(location);
  if (!s) {
    s = location.startsWith("s3://") ? new S3Storage(location) : new DirectoryStorage(location);
    made.set(location, s);
  }
  return s;
}

function directoryOf(dataDir: string, url: string | undefined): string {
  if (!url) return join(dataDir, "media");
  const path = url.startsWith("file://") ? new URL(url).pathname : url;
  return isAbsolute(path) ? path : resolve(path);
}
