import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { b64, mp3, mp4, pdf, png } from "../media/samples.ts";
import { connectedSession, createApiKey, drain, ISO_MS, recordEvents, statusOf, waitFor } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let session: { id: string; phone: string };
let otherSession: { id: string; phone: string };
beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, publicUrl: "https://parley.test" } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  session = await connectedSession(t, ws);
  otherSession = await connectedSession(t, other);
});
afterAll(() => t.close());

const send = (body: Record<string, unknown>, opts: { token?: string; apiKey?: string; path?: string; headers?: Record<string, string> } = {}) =>
  t.request("POST", opts.path ?? "/api/v1/messages/send", {
    token: opts.apiKey ? undefined : (opts.token ?? ws.owner.token),
    apiKey: opts.apiKey,
    headers: opts.headers,
    body: { session_id: session.id, to: "919876543210", ...body },
  });

describe("each message type over the sim network, through to read", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["text", { type: "text", body: "plain text" }, ""],
    ["image", { type: "image", body: "a caption", media: b64(png()), filename: "pic.png" }, "image/png"],
    ["document", { type: "document", body: "the contract", media: b64(pdf()), mimeType: "application/pdf", filename: "contract.pdf" }, "application/pdf"],
    ["audio", { type: "audio", media: b64(mp3()), filename: "voice.mp3" }, "audio/mpeg"],
    ["video", { type: "video", body: "clip", media: `data:video/mp4;base64,${b64(mp4())}` }, "video/mp4"],
  ];
  for (const [type, body, mime] of cases) {
    test(type, async () => {
      const events = recordEvents(t);
      const to = `9190000${String(cases.findIndex((c) => c[0] === type)).padStart(5, "0")}`;
      const r = await send({ ...body, to });
      expect(r.status).toBe(202);
      expect(r.body.data).toEqual({ id: r.body.data.id, status: "queued", sessionId: session.id, to, type, createdAt: r.body.data.createdAt, sendAt: null });
      const id = r.body.data.id as string;
      expect((await statusOf(t, id))).toBe("queued");
      await drain(t);

      // what the network received
      const onWire = t.sim.sent.filter((s) => s.message.to === to);
      expect(onWire.length).toBe(1);
      const wire = onWire[0]!;
      expect(wire.sessionId).toBe(session.id);
      expect(wire.message.type).toBe(type as never);
      expect(wire.message.text).toBe(body.body as string | undefined);
      if (mime) {
        expect(wire.message.media!.mimeType).toBe(mime);
        expect(wire.message.media!.data.byteLength).toBeGreaterThan(0);
      } else expect(wire.message.media).toBeUndefined();

      t.sim.receipt(session.id, wire.networkMessageId, "delivered");
      t.sim.receipt(session.id, wire.networkMessageId, "read");
      // receipts are applied asynchronously, each in its transaction
      const ofIt = () => events.filter((e) => (e.data as { messageId?: string }).messageId === id);
      await waitFor(() => ofIt().length >= 3, "the receipts' events");
      const mine = ofIt();
      expect(mine.map((e) => e.event)).toEqual(["message_sent", "message_delivered", "message_read"]);
      for (const e of mine) {
        expect(e.workspaceId).toBe(ws.id);
        expect(e.timestamp).toMatch(ISO_MS);
      }
      expect(mine[0]!.data).toEqual({ sessionId: session.id, to, messageId: id });
      expect(Object.keys(mine[1]!.data).sort()).toEqual(["deliveredAt", "messageId", "sessionId"]);
      expect(mine[1]!.data.sessionId).toBe(session.id);
      expect(mine[1]!.data.deliveredAt).toMatch(ISO_MS);
      expect(Object.keys(mine[2]!.data).sort()).toEqual(["messageId", "readAt", "sessionId"]);
      expect(mine[2]!.data.sessionId).toBe(session.id);
      expect(mine[2]!.data.readAt).toMatch(ISO_MS);

      const got = (await t.request("GET", `/api/v1/messages/${id}`, { token: ws.owner.token })).body.data;
      expect(got).toMatchObject({ id, sessionId: session.id, direction: "outbound", from: session.phone, to, type, status: "read", networkMessageId: wire.networkMessageId, error: null });
      expect(got.deliveredAt).toBe(mine[1]!.data.deliveredAt);
      expect(got.readAt).toBe(mine[2]!.data.readAt);
      expect(got.sentAt).toMatch(ISO_MS);
      if (mime) {
        expect(got.mimeType).toBe(mime);
        expect(got.mediaUrl).toBe(`https://parley.test/api/v1/media/${got.mediaId}`);
        const file = await t.app.handle(new Request(`http://localhost/api/v1/media/${got.mediaId}`, { headers: { authorization: `Bearer ${ws.owner.token}` } }));
        expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(wire.message.media!.data))).toBe(true);
      } else expect(got.mediaUrl).toBeNull();
    });
  }
});

describe("validation names the field and changes nothing", () => {
  const count = async () => ((await t.deps.db.prepare("SELECT count(*) AS n FROM messages").get()) as { n: number }).n;
  const cases: [string, Record<string, unknown>, string][] = [
    ["text without body", { type: "text" }, "body"],
    ["blank text", { type: "text", body: "   " }, "body"],
    ["bad phone", { type: "text", body: "x", to: "+91 98765" }, "to"],
    ["short phone", { type: "text", body: "x", to: "1234567" }, "to"],
    ["bad session id", { type: "text", body: "x", session_id: "nope" }, "session_id"],
    ["unknown type", { type: "sticker", body: "x" }, "type"],
    ["image without media", { type: "image" }, "media"],
    ["two media sources", { type: "image", media: b64(png()), mediaId: Bun.randomUUIDv7() }, "media"],
    ["media on text", { type: "text", body: "x", mediaUrl: "https://example.com/a.png" }, "mediaUrl"],
    ["not base64", { type: "image", media: "***" }, "media"],
    ["a pdf sent as image", { type: "image", media: b64(pdf()) }, "media"],
    ["text bytes sent as audio", { type: "audio", media: b64(new TextEncoder().encode("not audio")) }, "media"],
    ["empty media", { type: "document", media: "" }, "media"],
    ["bad mediaUrl", { type: "image", mediaUrl: "ftp://example.com/a.png" }, "mediaUrl"],
    ["bad mimeType", { type: "document", media: b64(pdf()), mimeType: "pdf" }, "mimeType"],
  ];
  for (const [name, body, field] of cases) {
    test(name, async () => {
      const before = await count();
      const r = await send(body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(r.body.errors)).toContain(field);
      expect(await count()).toBe(before);
    });
  }

  test("an image over 5 MB is refused before anything is stored", async () => {
    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(png());
    const r = await send({ type: "image", media: b64(big) });
    expect(r.status).toBe(400);
    expect(r.body.errors.media).toContain("5 MB");
    expect((await t.deps.db.prepare("SELECT count(*) AS n FROM media WHERE source = 'base64' AND size > 5000000").get() as { n: number }).n).toBe(0);
  });

  test("a malformed Idempotency-Key is refused", async () => {
    const r = await send({ type: "text", body: "x" }, { headers: { "idempotency-key": "has spaces in it" } });
    expect(r.status).toBe(400);
    expect(r.body.errors["Idempotency-Key"]).toBeDefined();
  });
});

describe("sessions, tenancy and auth", () => {
  test("unknown session: 404", async () => {
    const r = await send({ type: "text", body: "x", session_id: Bun.randomUUIDv7() });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("NOT_FOUND");
  });

  test("another workspace's session: 404, nothing sent", async () => {
    const before = t.sim.sent.length;
    const r = await send({ type: "text", body: "x", session_id: otherSession.id });
    expect(r.status).toBe(404);
    await drain(t);
    expect(t.sim.sent.length).toBe(before);
  });

  test("a session that is not connected: 502 CHATAPP_UNAVAILABLE", async () => {
    await t.deps.db.prepare("UPDATE chat_sessions SET status = 'disconnected' WHERE id = ?").run(session.id);
    try {
      const r = await send({ type: "text", body: "x" });
      expect(r.status).toBe(502);
      expect(r.body.code).toBe("CHATAPP_UNAVAILABLE");
    } finally {
      await t.deps.db.prepare("UPDATE chat_sessions SET status = 'connected' WHERE id = ?").run(session.id);
    }
  });

  test("another workspace's message id: 404", async () => {
    const r = await send({ type: "text", body: "mine" });
    const theirs = await t.request("GET", `/api/v1/messages/${r.body.data.id}`, { token: other.owner.token });
    expect(theirs.status).toBe(404);
    const list = await t.request("GET", "/api/v1/messages?limit=100", { token: other.owner.token });
    expect(list.body.data.some((m: { id: string }) => m.id === r.body.data.id)).toBe(false);
  });

  test("a viewer may not send; an agent may", async () => {
    const viewer = await ws.member("viewer");
    expect((await send({ type: "text", body: "x" }, { token: viewer.token })).status).toBe(403);
    const agent = await ws.member("agent");
    expect((await send({ type: "text", body: "x" }, { token: agent.token })).status).toBe(202);
  });

  test("no credentials: 401", async () => {
    const r = await t.request("POST", "/api/v1/messages/send", { body: { session_id: session.id, to: "919876543210", body: "x" } });
    expect(r.status).toBe(401);
  });

  test("an API key sends on /api/v1/messages/send and /api/external/messages/send; a JWT does not work under /api/external", async () => {
    const key = await createApiKey(t, ws);
    const a = await send({ type: "text", body: "by key" }, { apiKey: key });
    expect(a.status).toBe(202);
    const b = await send({ type: "text", body: "by key, external" }, { apiKey: key, path: "/api/external/messages/send" });
    expect(b.status).toBe(202);
    expect((await send({ type: "text", body: "jwt" }, { path: "/api/external/messages/send" })).status).toBe(401);
    const status = await t.request("GET", `/api/external/messages/${b.body.data.id}`, { apiKey: key });
    expect(status.body.data.status).toBe("queued");
    const otherKey = await createApiKey(t, other);
    expect((await t.request("GET", `/api/external/messages/${b.body.data.id}`, { apiKey: otherKey })).status).toBe(404);
  });

  test("type defaults to text", async () => {
    const r = await send({ body: "no type given" });
    expect(r.status).toBe(202);
    expect(r.body.data.type).toBe("text");
  });
});

describe("plan and quota", () => {
  test("a paused workspace: 403 SUBSCRIPTION_INACTIVE", async () => {
    const paused = await createWorkspace(t, { status: "paused" });
    const s = await connectedSession(t, paused);
    const r = await t.request("POST", "/api/v1/messages/send", { token: paused.owner.token, body: { session_id: s.id, to: "919876543210", body: "x" } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("SUBSCRIPTION_INACTIVE");
  });

  test("the monthly message quota: 403 LIMIT_EXCEEDED at the limit, and concurrent sends never pass it", async () => {
    const free = await createWorkspace(t, { status: "free", planId: "free" });
    const s = await connectedSession(t, free);
    const period = t.clock.now().toISOString().slice(0, 7);
    await t.deps.db.prepare("INSERT INTO message_usage (workspace_id, period, outbound) VALUES (?, ?, ?)").run(free.id, period, 1000 - 3);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.request("POST", "/api/v1/messages/send", { token: free.owner.token, body: { session_id: s.id, to: "919876543210", body: `n${i}` } }),
      ),
    );
    expect(results.filter((r) => r.status === 202).length).toBe(3);
    for (const r of results.filter((r) => r.status !== 202)) expect(r.body.code).toBe("LIMIT_EXCEEDED");
    expect((await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE workspace_id = ?").get(free.id) as { n: number }).n).toBe(3);
  });
});

test("a connected session's messages go out in the order they were accepted", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await send({ type: "text", body: `order ${i}`, to: "919811100000" })).body.data.id);
  await drain(t);
  const texts = t.sim.sent.filter((s) => s.message.to === "919811100000").map((s) => s.message.text);
  expect(texts).toEqual(["order 0", "order 1", "order 2", "order 3", "order 4"]);
  await waitFor(async () => (await Promise.all(ids.map((id) => statusOf(t, id)))).every((s) => s === "sent"), "all sent");
});
