import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { DirectoryStorage } from "../../../src/modules/media/storage/directory.ts";
import { mediaStorage, type MediaStorage } from "../../../src/modules/media/storage/index.ts";
import { S3Storage, s3Env } from "../../../src/modules/media/storage/s3.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { startS3, type TestS3 } from "../../helpers/s3.ts";
import { connectedSession, drain } from "../messages/helpers.ts";
import { png } from "./samples.ts";

// The media storage behind `mediaUrl`: a directory (the default `<dataDir>/media`, or another)
// or an S3-compatible bucket, here a real S3 server (s3rver) on a loopback port.

// started before the tests are declared: whether they skip depends on it
const s3: TestS3 | null = await startS3();
const saved: Record<string, string | undefined> = {};
// the storage reads the standard variables when it is made
for (const [k, v] of Object.entries(s3?.env ?? {})) {
  saved[k] = process.env[k];
  process.env[k] = v;
}
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await s3?.close();
});
const noS3 = () => !s3;
const S3_TITLE = "(skipped when the S3 server s3rver cannot start)";

async function roundTrip(storage: MediaStorage): Promise<void> {
  const ws = Bun.randomUUIDv7();
  const id = Bun.randomUUIDv7();
  const bytes = png();
  await storage.write(ws, id, bytes);
  expect(await storage.read(ws, id)).toEqual(bytes);
  const body = await storage.open(ws, id);
  expect(new Uint8Array(await new Response(body).arrayBuffer())).toEqual(bytes);
  // a file streamed to local disk first (inbound media) is moved in
  const scratch = join(mkdtempSync(join(tmpdir(), "parley-incoming-")), "part");
  writeFileSync(scratch, "streamed bytes");
  const adopted = Bun.randomUUIDv7();
  await storage.adopt(ws, adopted, scratch);
  expect(existsSync(scratch)).toBe(false);
  expect(new TextDecoder().decode((await storage.read(ws, adopted))!)).toBe("streamed bytes");
  // gone: null, and removing twice is fine
  await storage.remove(ws, id);
  await storage.remove(ws, id);
  expect(await storage.read(ws, id)).toBeNull();
  expect(await storage.open(ws, id)).toBeNull();
  expect(await storage.read(Bun.randomUUIDv7(), id)).toBeNull();
}

describe("storages", () => {
  test("a directory: write, read, stream, move a local file in, remove", async () => {
    await roundTrip(new DirectoryStorage(mkdtempSync(join(tmpdir(), "parley-media-"))));
  });

  test.skipIf(noS3())(`an S3 bucket with a key prefix: write, read, stream, move a local file in, remove ${S3_TITLE}`, async () => {
    await roundTrip(new S3Storage(`s3://${s3!.bucket}/tenant-a/media`));
  });

  test("mediaUrl picks the storage: unset is <dataDir>/media, a path is that directory, s3:// a bucket", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "parley-data-"));
    expect(mediaStorage({ dataDir, mediaUrl: undefined }).location).toBe(join(dataDir, "media"));
    expect(mediaStorage({ dataDir, mediaUrl: "/srv/shared/media" }).location).toBe("/srv/shared/media");
    expect(mediaStorage({ dataDir, mediaUrl: "file:///srv/shared/media" }).location).toBe("/srv/shared/media");
    expect(mediaStorage({ dataDir, mediaUrl: "s3://bucket/prefix" })).toBeInstanceOf(S3Storage);
  });

  test("the S3 variables: S3_* first, then the AWS_* twins; unset ones are left out", () => {
    expect(s3Env({ S3_ENDPOINT: "http://a", AWS_ENDPOINT_URL: "http://b", AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s" })).toEqual({
      endpoint: "http://a",
      region: "eu-west-1",
      accessKeyId: "k",
      secretAccessKey: "s",
    });
    expect(s3Env({})).toEqual({});
  });

  test("PARLEY_MEDIA_URL: s3://bucket[/prefix] or a directory; a malformed s3 URL is refused naming the setting", () => {
    expect(loadConfig({ mediaUrl: "s3://my-bucket/some/prefix" }).mediaUrl).toBe("s3://my-bucket/some/prefix");
    expect(loadConfig({ mediaUrl: "/var/lib/parley-media" }).mediaUrl).toBe("/var/lib/parley-media");
    expect(loadConfig({ mediaUrl: "" }).mediaUrl).toBeUndefined();
    for (const bad of ["s3://", "s3://B/x", "s3:bucket"]) expect(() => loadConfig({ mediaUrl: bad })).toThrow(/mediaUrl/);
  });
});

describe("an app whose media live in S3", () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let other: TestWorkspace;
  let prefix: string;
  beforeAll(async () => {
    if (!s3) return;
    prefix = `app-${Bun.randomUUIDv7().slice(-8)}`;
    t = await createTestApp({ config: { mediaUrl: `s3://${s3.bucket}/${prefix}`, sendMinGapMs: 0, sendJitterMs: 0 } });
    ws = await createWorkspace(t);
    other = await createWorkspace(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  test.skipIf(noS3())(`upload, download, and a send of the uploaded media read the bucket; nothing is written to the data dir ${S3_TITLE}`, async () => {
    const bytes = png(3, 3);
    const fd = new FormData();
    fd.append("file", new File([bytes], "pic.png"));
    fd.append("type", "image");
    const up = await t.request("POST", "/api/v1/media", { token: ws.owner.token, body: fd });
    expect(up.status).toBe(201);
    const id = up.body.data.id as string;
    // in the bucket, under the prefix
    const direct = new S3Storage(`s3://${s3!.bucket}/${prefix}`);
    expect(await direct.read(ws.id, id)).toEqual(bytes);
    expect(existsSync(join(t.deps.config.dataDir, "media")) ? readdirSync(join(t.deps.config.dataDir, "media")) : []).toEqual([]);

    const down = await t.app.handle(new Request(`http://localhost/api/v1/media/${id}`, { headers: { authorization: `Bearer ${ws.owner.token}` } }));
    expect(down.status).toBe(200);
    expect(down.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await down.arrayBuffer())).toEqual(bytes);
    // another workspace's id: 404
    const foreign = await t.app.handle(new Request(`http://localhost/api/v1/media/${id}`, { headers: { authorization: `Bearer ${other.owner.token}` } }));
    expect(foreign.status).toBe(404);

    // the sender reads the file from the bucket
    const session = await connectedSession(t, ws);
    const sent = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { sessionId: session.id, to: "+919800011111", type: "image", mediaId: id } });
    expect(sent.status).toBeLessThan(300);
    await drain(t);
    const wire = t.sim.sent.find((s) => s.message.to === "919800011111");
    expect(wire?.message.media?.data).toEqual(bytes);

    // a row whose file is gone answers 404, not a broken stream
    await direct.remove(ws.id, id);
    const gone = await t.app.handle(new Request(`http://localhost/api/v1/media/${id}`, { headers: { authorization: `Bearer ${ws.owner.token}` } }));
    expect(gone.status).toBe(404);
  });
});
