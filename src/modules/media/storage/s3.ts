import { nodeFsPromises } from "../../../node/lazy.ts";
import type { MediaStorage } from "./storage.ts";

/**
 * Media files in an S3-compatible bucket through Bun's built-in client: `s3://bucket[/prefix]`
 * gives the bucket and the key prefix (`<prefix>/<workspaceId>/<id>`); the endpoint, region and
 * keys come from the standard variables (see s3Env).
 */
export class S3Storage implements MediaStorage {
  private client: Bun.S3Client;
  private prefix: string;

  constructor(readonly location: string) {
    const u = new URL(location);
    this.prefix = u.pathname.replace(/^\/+|\/+$/g, "");
    this.client = new Bun.S3Client({ bucket: u.hostname, ...s3Env(process.env) });
  }

  key(workspaceId: string, id: string): string {
    return `${this.prefix ? `${this.prefix}/` : ""}${workspaceId}/${id}`;
  }

  async write(workspaceId: string, id: string, bytes: Uint8Array): Promise<void> {
    await this.client.write(this.key(workspaceId, id), bytes);
  }

  async adopt(workspaceId: string, id: string, file: string): Promise<void> {
    await this.client.write(this.key(workspaceId, id), Bun.file(file));
    await nodeFsPromises().rm(file, { force: true });
  }

  async read(workspaceId: string, id: string): Promise<Uint8Array | null> {
    const f = this.client.file(this.key(workspaceId, id));
    try {
      return await f.bytes();
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async open(workspaceId: string, id: string): Promise<ReadableStream<Uint8Array> | null> {
    const f = this.client.file(this.key(workspaceId, id));
    if (!(await f.exists())) return null;
    return f.stream();
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    try {
      await this.client.delete(this.key(workspaceId, id));
    } catch (err) {
      if (!notFound(err)) throw err;
    }
  }
}

function notFound(err: unknown): boolean {
  const e = err as { code?: string; name?: string };
  return e?.code === "NoSuchKey" || e?.name === "NoSuchKey" || /NoSuchKey|404/.test(String((err as Error)?.message ?? ""));
}

/**
 * The client's endpoint, region and keys from the standard variables: `S3_*` first, then their
 * `AWS_*` twins (and the AWS SDKs' `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`). Read when the
 * storage is made (Bun's own defaults are read once at process start). Unset ones are left to
 * the client (AWS's regional endpoint for a bucket on AWS).
 */
export function s3Env(env: Record<string, string | undefined>): Partial<Bun.S3Options> {
  const pick = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== "");
  const out: Partial<Bun.S3Options> = {
    endpoint: pick("S3_ENDPOINT", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"),
    region: pick("S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"),
    accessKeyId: pick("S3_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID"),
    secretAccessKey: pick("S3_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
    sessionToken: pick("S3_SESSION_TOKEN", "AWS_SESSION_TOKEN"),
  };
  for (const k of Object.keys(out) as (keyof typeof out)[]) if (out[k] === undefined) delete out[k];
  return out;
}
