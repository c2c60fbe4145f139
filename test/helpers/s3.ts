import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** the standard variables Bun's S3 client reads */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real S3-compatible server on a loopback port (s3rver, from npm), with one bucket, for the
 * media storage tests; null when it cannot start (the tests that need it skip, saying so).
 */
export async function startS3(bucket = "parley-media"): Promise<TestS3 | null> {
  const directory = mkdtempSync(join(tmpdir(), "parley-s3-"));
  try {
    const { default: S3rver } = await import("s3rver");
    const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: bucket }] });
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    return {
      endpoint,
      bucket,
      // s3rver's fixed credentials
      env: { S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: "S3RVER", S3_SECRET_ACCESS_KEY: "S3RVER", S3_REGION: "us-east-1" },
      async close() {
        await server.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch {
    rmSync(directory, { recursive: true, force: true });
    return null;
  }
}
