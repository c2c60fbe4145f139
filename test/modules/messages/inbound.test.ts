import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AppEvent } from "../../../src/events/bus.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { pdf, png } from "../media/samples.ts";
import { connectedSession, createApiKey, ISO_MS, recordEvents, waitFor } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let session: { id: string; phone: string };
beforeAll(async () => {
  t = await createTestApp({ config: { publicUrl: "https://parley.test/" } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  session = await connectedSession(t, ws);
});
afterAll(() => t.close());

const received = (events: AppEvent[]) => events.filter((e) => e.event === "message_received") as { data: Record<string, any> }[];
const firstReceived = async (events: AppEvent[]) => {
  await waitFor(() => received(events).length > 0, "message_received");
  return received(events)[0]!;
};

test("an inbound text is stored, its contact upserted and message_received carries text and content", async () => {
  const events = recordEvents(t);
  const networkId = t.sim.inbound(session.id, { from: "919822200001", pushName: "Asha", type: "text", text: "hi there" });
  const e = await firstReceived(events);
  expect(Object.keys(e!.data).sort()).toEqual(["content", "filename", "from", "mediaId", "mediaUrl", "messageId", "mimeType", "pushName", "sessionId", "text", "timestamp", "type"]);
  expect(e!.data).toMatchObject({ sessionId: session.id, from: "919822200001", type: "text", text: "hi there", content: "hi there", mediaUrl: null, pushName: "Asha" });
  expect(e!.data.timestamp).toMatch(ISO_MS);
  const msg = (await t.request("GET", `/api/v1/messages/${e!.data.messageId}`, { token: ws.owner.token })).body.data;
  expect(msg).toMatchObject({ direction: "inbound", from: "919822200001", to: session.phone, body: "hi there", status: "received", networkMessageId: networkId });
  const contact = await t.deps.db.prepare("SELECT phone, push_name AS \"pushName\", last_inbound_at AS at FROM contacts WHERE workspace_id = ?").all(ws.id);
  expect(contact).toEqual([{ phone: "919822200001", pushName: "Asha", at: expect.any(Number) }]);

  // a second message updates the push name, keeps one contact
  t.sim.inbound(session.id, { from: "919822200001", pushName: "Asha K", type: "text", text: "again" });
  await waitFor(() => received(events).length === 2, "second message");
  const after = await t.deps.db.prepare("SELECT push_name AS \"pushName\" FROM contacts WHERE workspace_id = ?").all(ws.id);
  expect(after).toEqual([{ pushName: "Asha K" }]);
});

test("the same network message delivered twice is stored once", async () => {
  const events = recordEvents(t);
  t.sim.inbound(session.id, { networkMessageId: "SIMINDUPLICATE1", from: "919822200002", type: "text", text: "dup" });
  t.sim.inbound(session.id, { networkMessageId: "SIMINDUPLICATE1", from: "919822200002", type: "text", text: "dup" });
  await waitFor(() => received(events).length, "message_received");
  await Bun.sleep(20);
  expect(received(events).length).toBe(1);
  expect((await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE network_message_id = 'SIMINDUPLICATE1'").get() as { n: number }).n).toBe(1);
});

test("inbound media: stored in the data dir, downloadable only with the workspace's credentials", async () => {
  const events = recordEvents(t);
  const bytes = png(3, 3);
  t.sim.inbound(session.id, { from: "919822200003", type: "image", text: "look", media: { data: bytes, mimeType: "image/png", filename: "photo.png" } });
  const e = await firstReceived(events);
  expect(e!.data).toMatchObject({ type: "image", text: "look", content: "look", mimeType: "image/png", filename: "photo.png" });
  // the event's mediaUrl is for webhook receivers (API keys, docs/api.md); the dashboard has /api/v1/media/{mediaId}
  const url = e!.data.mediaUrl as string;
  expect(url).toBe(`https://parley.test/api/external/media/${e!.data.mediaId}`);
  const external = new URL(url).pathname;
  const dashboard = `/api/v1/media/${e!.data.mediaId}`;
  const fetchAt = (path: string) => (headers: Record<string, string>) => t.app.handle(new Request(`http://localhost${path}`, { headers }));
  const get = fetchAt(dashboard);
  const getExternal = fetchAt(external);

  const byKey = await getExternal({ "x-api-key": await createApiKey(t, ws) });
  expect(byKey.status).toBe(200);
  expect(Buffer.from(await byKey.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  expect((await getExternal({ authorization: `Bearer ${ws.owner.token}` })).status).toBe(401);
  expect((await getExternal({ "x-api-key": await createApiKey(t, other) })).status).toBe(404);
  expect((await getExternal({})).status).toBe(401);

  const byOwner = await get({ authorization: `Bearer ${ws.owner.token}` });
  expect(byOwner.status).toBe(200);
  expect(byOwner.headers.get("content-type")).toBe("image/png");
  expect(byOwner.headers.get("x-content-type-options")).toBe("nosniff");
  expect(byOwner.headers.get("content-disposition")).toContain('filename="photo.png"');
  expect(Buffer.from(await byOwner.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

  const viewer = await ws.member("viewer");
  expect((await get({ authorization: `Bearer ${viewer.token}` })).status).toBe(200);
  expect((await get({ "x-api-key": await createApiKey(t, ws) })).status).toBe(401); // docs/api.md: keys only under /api/external

  const none = await get({});
  expect(none.status).toBe(401);
  expect(((await none.json()) as { code: string }).code).toBe("UNAUTHORIZED");
  const foreign = await get({ authorization: `Bearer ${other.owner.token}` });
  expect(foreign.status).toBe(404);
  expect((await get({ authorization: "Bearer not-a-token" })).status).toBe(401);
});

test("an inbound document without a caption has empty text and content", async () => {
  const events = recordEvents(t);
  t.sim.inbound(session.id, { from: "919822200004", type: "document", media: { data: pdf(), mimeType: "application/pdf", filename: "bill.pdf" } });
  const e = await firstReceived(events);
  expect(e!.data).toMatchObject({ type: "document", text: "", content: "", mimeType: "application/pdf", filename: "bill.pdf" });
});

test("inbound messages of one session are stored in arrival order", async () => {
  const events = recordEvents(t);
  for (let i = 0; i < 10; i++) {
    if (i % 3 === 0) t.sim.inbound(session.id, { from: "919822200005", type: "image", text: `n${i}`, media: { data: png(), mimeType: "image/png" } });
    else t.sim.inbound(session.id, { from: "919822200005", type: "text", text: `n${i}` });
  }
  await waitFor(() => received(events).length === 10, "ten messages");
  expect(received(events).map((e) => e.data.text)).toEqual(Array.from({ length: 10 }, (_, i) => `n${i}`));
  const stored = await t.deps.db.prepare("SELECT body FROM messages WHERE phone = '919822200005' ORDER BY id").all() as { body: string }[];
  expect(stored.map((r) => r.body)).toEqual(Array.from({ length: 10 }, (_, i) => `n${i}`));
});

test("over the contacts quota the message is still stored, without a new contact", async () => {
  const free = await createWorkspace(t, { status: "free", planId: "free" });
  const s = await connectedSession(t, free);
  const ins = t.deps.db.prepare("INSERT INTO contacts (id, workspace_id, phone, created_at, updated_at) VALUES (?, ?, ?, 0, 0)");
  await t.deps.db.tx(async () => {
    for (let i = 0; i < 500; i++) await ins.run(Bun.randomUUIDv7(), free.id, `91700000${String(i).padStart(4, "0")}`);
  });
  const events = recordEvents(t);
  t.sim.inbound(s.id, { from: "919822200006", type: "text", text: "over quota" });
  await waitFor(() => received(events).length, "message_received");
  expect((await t.deps.db.prepare("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(free.id) as { n: number }).n).toBe(500);
  expect((await t.deps.db.prepare("SELECT count(*) AS n FROM messages WHERE workspace_id = ?").get(free.id) as { n: number }).n).toBe(1);
});
