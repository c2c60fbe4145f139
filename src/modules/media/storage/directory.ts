import { nodeFsPromises } from "../../../node/lazy.ts";
import { join } from "node:path";
import type { MediaStorage } from "./storage.ts";

/** Media files in a directory: `<dir>/<workspaceId>/<id>`, folders 0700. */
export class DirectoryStorage implements MediaStorage {
  constructor(readonly location: string) {}

  path(workspaceId: string, id: string): string {
    return join(this.location, workspaceId, id);
  }

  private async folder(workspaceId: string): Promise<void> {
    await nodeFsPromises().mkdir(join(this.location, workspaceId), { recursive: true, mode: 0o700 });
  }

  async write(workspaceId: string, id: string, bytes: Uint8Array): Promise<void> {
    await this.folder(workspaceId);
    await Bun.write(this.path(workspaceId, id), bytes);
  }

  async adopt(workspaceId: string, id: string, file: string): Promise<void> {
    await this.folder(workspaceId);
    const to = this.path(workspaceId, id);
    try {
      await nodeFsPromises().rename(file, to);
    } catch (err) {
      // a shared directory on another filesystem than the data dir's scratch folder
      if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
      await nodeFsPromises().copyFile(file, to);
      await nodeFsPromises().rm(file, { force: true });
    }
  }

  async read(workspaceId: string, id: string): Promise<Uint8Array | null> {
    const f = Bun.file(this.path(workspaceId, id));
    return (await f.exists()) ? await f.bytes() : null;
  }

  async open(workspaceId: string, id: string): Promise<Blob | null> {
    const f = Bun.file(this.path(workspaceId, id));
    return (await f.exists()) ? f : null;
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    await nodeFsPromises().rm(this.path(workspaceId, id), { force: true });
  }
}
