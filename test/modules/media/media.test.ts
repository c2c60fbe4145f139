import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, createApiKey, drain } from "../messages/helpers.ts";
import { bigPng, mp3, pdf, png } from "./samples.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let session: { id: string; phone: string };
let server: ReturnType<typeof Bun.serve>;
const served = new Map<string, () => Response>();

beforeAll(async () => {
  // a local file server stands in for a client's media host
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (served.get(new URL(req.url).pathname) ?? (() => new Response("no", { status: 404 })))() });
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, webhookAllowHttp: true, webhookAllowPrivate: true } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  session = await connectedSession(t, ws);
});
afterAll(async () => {
  await t.close();
  server.stop(true);
});

function upload(file: File | null, opts: { token?: string; apiKey?: string; type?: string } = {}) {
  const fd = new FormData();
  if (file) fd.append("file", file);
  if (opts.type) fd.append("type", opts.type);
  // API keys upload under /api/external, the dashboard under /api/v1
  const path = opts.apiKey ? "/api/external/media" : "/api/v1/media";
  return t.request("POST", path, { token: opts.apiKey ? undefined : (opts.token ?? ws.owner.token), apiKey: opts.apiKey, body: fd });
}

describe("upload", () => {
  test("201 with id, mimeType (sniffed, not declared), size, filename; stored under the data dir", async () => {
    const bytes = png();
    const r = await upload(new File([bytes], "logo.png", { type: "application/x-lies" }));
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ mimeType: "image/png", size: bytes.byteLength, filename: "logo.png" });
    expect(existsSync(join(t.deps.config.dataDir, "media", ws.id, r.body.data.id))).toBe(true);
  });

  test("an API key may upload under /api/external; a viewer may not", async () => {
    const key = await createApiKey(t, ws);
    expect((await upload(new File([pdf()], "a.pdf"), { apiKey: key })).status).toBe(201);
    // both wrong ways: a key under /api/v1, a JWT under /api/external
    const fd = () => {
      const f = new FormData();
      f.append("file", new File([pdf()], "a.pdf"));
      return f;
    };
    expect((await t.request("POST", "/api/v1/media", { apiKey: key, body: fd() })).status).toBe(401);
    expect((await t.request("POST", "/api/external/media", { token: ws.owner.token, body: fd() })).status).toBe(401);
    const viewer = await ws.member("viewer");
    expect((await upload(new File([pdf()], "a.pdf"), { token: viewer.token })).status).toBe(403);
  });

  test("missing file: 400 naming file", async () => {
    const r = await upload(null);
    expect(r.status).toBe(400);
    expect(r.body.errors.file).toBeDefined();
  });

  test("the cap and MIME check of a declared type apply at upload", async () => {
    const tooBig = await upload(new File([bigPng(5 * 1024 * 1024 + 10)], "big.png"), { type: "image" });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.errors.file).toContain("5 MB");
    const notAudio = await upload(new File([pdf()], "song.mp3"), { type: "audio" });
    expect(notAudio.status).toBe(400);
    expect(notAudio.body.errors.file).toContain("application/pdf");
    expect((await upload(new File([mp3()], "song.mp3"), { type: "audio" })).status).toBe(201);
    // as a document, the same big picture is fine
    expect((await upload(new File([bigPng(5 * 1024 * 1024 + 10)], "big.png"))).status).toBe(201);
  });

  test("an empty file is refused", async () => {
    const r = await upload(new File([], "empty.txt"));
    expect(r.status).toBe(400);
    expect(r.body.errors.file).toBe("is empty");
  });

  test("download: same workspace only; unknown id 404; bad id 400", async () => {
    const up = await upload(new File([pdf()], "Rechnung März.pdf"));
    const id = up.body.data.id;
    const mine = await t.app.handle(new Request(`http://localhost/api/v1/media/${id}`, { headers: { authorization: `Bearer ${ws.owner.token}` } }));
    expect(mine.status).toBe(200);
    expect(mine.headers.get("content-disposition")).toContain("filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf");
    expect((await t.request("GET", `/api/v1/media/${id}`, { token: other.owner.token })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/media/${Bun.randomUUIDv7()}`, { token: ws.owner.token })).status).toBe(404);
    const bad = await t.request("GET", "/api/v1/media/xyz", { token: ws.owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.id).toBeDefined();
  });
});

describe("sending media by mediaId and mediaUrl", () => {
  const send = (body: Record<string, unknown>, token = ws.owner.token) =>
    t.request("POST", "/api/v1/messages/send", { token, body: { session_id: session.id, to: "919876543210", ...body } });

  test("mediaId of an upload", async () => {
    const up = await upload(new File([pdf()], "terms.pdf"));
    const r = await send({ type: "document", mediaId: up.body.data.id, body: "terms" });
    expect(r.status).toBe(202);
    await drain(t);
    const wire = t.sim.sent.find((s) => s.message.text === "terms")!;
    expect(wire.message.media).toMatchObject({ mimeType: "application/pdf", filename: "terms.pdf" });
  });

  test("another workspace's mediaId: 404", async () => {
    const fd = new FormData();
    fd.append("file", new File([png()], "x.png"));
    const theirs = await t.request("POST", "/api/v1/media", { token: other.owner.token, body: fd });
    const r = await send({ type: "image", mediaId: theirs.body.data.id });
    expect(r.status).toBe(404);
  });

  test("a mediaId whose file is a PDF cannot be sent as an image", async () => {
    const up = await upload(new File([pdf()], "x.pdf"));
    const r = await send({ type: "image", mediaId: up.body.data.id });
    expect(r.status).toBe(400);
    expect(r.body.errors.mediaId).toContain("application/pdf");
  });

  test("mediaUrl is fetched, sniffed and sent", async () => {
    served.set("/pics/cat.png", () => new Response(png(4, 4), { headers: { "content-type": "image/png" } }));
    const r = await send({ type: "image", mediaUrl: `http://127.0.0.1:${server.port}/pics/cat.png`, body: "cat" });
    expect(r.status).toBe(202);
    await drain(t);
    const wire = t.sim.sent.find((s) => s.message.text === "cat")!;
    expect(wire.message.media).toMatchObject({ mimeType: "image/png", filename: "cat.png" });
    expect(wire.message.media!.data).toEqual(png(4, 4));
  });

  test("mediaUrl failures are 400 naming mediaUrl", async () => {
    served.set("/moved", () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }));
    served.set("/huge.png", () => new Response(bigPng(5 * 1024 * 1024 + 1)));
    served.set("/doc.pdf", () => new Response(pdf(), { headers: { "content-type": "image/png" } }));
    const base = `http://127.0.0.1:${server.port}`;
    for (const [path, why] of [
      ["/missing", "HTTP 404"],
      ["/moved", "redirect"],
      ["/huge.png", "5 MB"],
      ["/doc.pdf", "application/pdf"],
    ] as const) {
      const r = await send({ type: "image", mediaUrl: base + path });
      expect(r.status).toBe(400);
      expect(r.body.errors.mediaUrl).toContain(why);
    }
  });
});

test("by default mediaUrl may not point at loopback or plain HTTP", async () => {
  const strict = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  try {
    const w = await createWorkspace(strict);
    const s = await connectedSession(strict, w);
    served.set("/ok.png", () => new Response(png()));
    for (const url of [`http://127.0.0.1:${server.port}/ok.png`, `https://127.0.0.1:${server.port}/ok.png`, "https://10.0.0.1/x.png", "https://[::1]/x.png"]) {
      const r = await strict.request("POST", "/api/v1/messages/send", { token: w.owner.token, body: { session_id: s.id, to: "919876543210", type: "image", mediaUrl: url } });
      expect(r.status).toBe(400);
      expect(r.body.errors.mediaUrl).toContain("not allowed");
    }
    expect((await strict.deps.db.prepare("SELECT count(*) AS n FROM messages").get() as { n: number }).n).toBe(0);
  } finally {
    await strict.close();
  }
});

describe("inbound media the network gives as a URL (the sim's mediaUrl)", () => {
  test("is fetched with the guard and served at the event's mediaUrl", async () => {
    served.set("/in/voice.mp3", () => new Response(mp3(), { headers: { "content-type": "audio/mpeg" } }));
    const events: { event: string; data: Record<string, unknown> }[] = [];
    const off = t.deps.bus.subscribe((e) => events.push(e));
    t.sim.inbound(session.id, { from: "919855500001", type: "audio", mediaUrl: `http://127.0.0.1:${server.port}/in/voice.mp3` });
    const deadline = Date.now() + 3000;
    while (!events.some((e) => e.event === "message_received") && Date.now() < deadline) await Bun.sleep(2);
    off();
    const e = events.find((x) => x.event === "message_received")!;
    expect(e.data).toMatchObject({ type: "audio", mimeType: "audio/mpeg", filename: "voice.mp3" });
    const path = new URL(e.data.mediaUrl as string).pathname;
    expect(path).toBe(`/api/external/media/${e.data.mediaId}`);
    const file = await t.app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": await createApiKey(t, ws) } }));
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(mp3()))).toBe(true);
  });

  test("a URL the guard refuses leaves the message stored without media", async () => {
    const strict = await createTestApp();
    try {
      const w = await createWorkspace(strict);
      const s = await connectedSession(strict, w);
      const events: { event: string; data: Record<string, unknown> }[] = [];
      strict.deps.bus.subscribe((e) => events.push(e));
      strict.sim.inbound(s.id, { from: "919855500002", type: "image", text: "see", mediaUrl: `http://127.0.0.1:${server.port}/ok.png` });
      const deadline = Date.now() + 3000;
      while (!events.some((e) => e.event === "message_received") && Date.now() < deadline) await Bun.sleep(2);
      expect(events.find((x) => x.event === "message_received")!.data).toMatchObject({ type: "image", text: "see", mediaUrl: null });
    } finally {
      await strict.close();
    }
  });
});
