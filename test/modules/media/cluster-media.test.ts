import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedWorkspace, startNodes } from "../../helpers/cluster.ts";
import { freshPostgres, TEST_PG_URL } from "../../helpers/postgres.ts";
import type { ChildServer } from "../../helpers/process.ts";
import { startS3 } from "../../helpers/s3.ts";
import { png } from "./samples.ts";

// The nodes of a cluster share one media store: a file uploaded through one node is downloaded
// through another, from an S3 bucket (a real S3 server, s3rver) or from a directory they share.

const s3 = TEST_PG_URL ? await startS3() : null;
const running: ChildServer[] = [];
afterAll(async () => {
  for (const n of running) await n.stop();
  await s3?.close();
});

async function uploadThroughOneDownloadThroughAnother(env: Record<string, string>): Promise<void> {
  const pg = await freshPostgres();
  try {
    const [a, b] = await startNodes(pg.url, 2, { env });
    running.push(a!, b!);
    const ws = await seedWorkspace(pg.url);
    const other = await seedWorkspace(pg.url);
    const bytes = png(4, 4);
    const fd = new FormData();
    fd.append("file", new File([bytes], "shared.png"));
    const up = await fetch(`${a!.url}/api/v1/media`, { method: "POST", headers: { authorization: `Bearer ${ws.token}` }, body: fd });
    expect(up.status).toBe(201);
    const id = ((await up.json()) as { data: { id: string } }).data.id;
    const down = await fetch(`${b!.url}/api/v1/media/${id}`, { headers: { authorization: `Bearer ${ws.token}` } });
    expect(down.status).toBe(200);
    expect(down.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await down.arrayBuffer())).toEqual(bytes);
    // another workspace never reads it, on any node
    for (const n of [a!, b!]) expect((await fetch(`${n.url}/api/v1/media/${id}`, { headers: { authorization: `Bearer ${other.token}` } })).status).toBe(404);
    for (const n of [a!, b!]) await n.stop();
  } finally {
    await pg.drop();
  }
}

test.skipIf(!TEST_PG_URL || !s3)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL; skipped when the S3 server s3rver cannot start): media uploaded through node A in an S3 bucket are downloaded through node B", async () => {
  await uploadThroughOneDownloadThroughAnother({ ...s3!.env, PARLEY_MEDIA_URL: `s3://${s3!.bucket}/cluster-${Bun.randomUUIDv7().slice(-8)}` });
}, 60_000);

test.skipIf(!TEST_PG_URL)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL): media uploaded through node A in a shared directory are downloaded through node B", async () => {
  await uploadThroughOneDownloadThroughAnother({ PARLEY_MEDIA_URL: mkdtempSync(join(tmpdir(), "parley-shared-media-")) });
}, 60_000);
