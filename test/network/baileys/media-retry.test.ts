import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { mediaPath } from "../../../src/modules/media/store.ts";
import { harness, until, type Harness } from "./harness.ts";

// The recipient's device asks for a message again (a retry receipt): baileys calls getMessage
// and re-encrypts what it answers. A media message used to get nothing once it had left the
// driver's memory (a restart): it is now answered from the stored file, uploaded again.

let h: Harness;
beforeAll(async () => {
  h = await harness({ driver: { watchdogMs: 0 } });
});
afterAll(async () => {
  await h.rt.close();
});

// a 1x1 PNG
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

async function upload(): Promise<string> {
  const form = new FormData();
  form.append("file", new File([PNG], "dot.png", { type: "image/png" }));
  form.append("type", "image");
  const res = await h.rt.app.handle(new Request("http://localhost/api/v1/media", { method: "POST", headers: { authorization: `Bearer ${h.ws.owner.token}` }, body: form }));
  const body = (await res.json()) as any;
  expect(res.status).toBe(201);
  return body.data.id;
}

test("a retry request for a media message sent before a restart is answered from the stored file, uploaded again", async () => {
  const { id, sock } = await h.linkedSession();
  const mediaId = await upload();
  const r = await h.call("POST", "/api/v1/messages/send", { session_id: id, to: "919800000005", type: "image", mediaId, body: "a dot" });
  expect(r.status).toBe(202);
  await h.rt.deps.jobs.runDue();
  await until(() => h.rt.deps.db.prepare("SELECT 1 FROM messages WHERE id = ? AND status = 'sent'").get(r.body.data.id), "sent");
  // as after a restart: the driver's memory does not have it, only the database
  await h.rt.deps.db.prepare("UPDATE messages SET network_message_id = 'OLDMEDIA' WHERE id = ?").run(r.body.data.id);
  const content = (await sock.config.getMessage({ id: "OLDMEDIA", remoteJid: "919800000005@s.whatsapp.net", fromMe: true })) as any;
  expect(content?.imageMessage).toBeDefined();
  expect(content.imageMessage).toMatchObject({ mimetype: "image/png", caption: "a dot", directPath: "/v/t62.7118-24/1?ccb=11-4" });
  expect(content.imageMessage.mediaKey?.length).toBe(32);
  expect(sock.uploads).toEqual([expect.objectContaining({ mediaType: "image" })]);
  // asked again: the same answer, without a second upload
  expect(await sock.config.getMessage({ id: "OLDMEDIA" })).toBe(content);
  expect(sock.uploads.length).toBe(1);
});

test("a media message whose file is gone, or a session not connected, gets no answer (and no crash)", async () => {
  const { id, sock } = await h.linkedSession();
  const mediaId = await upload();
  const r = await h.call("POST", "/api/v1/messages/send", { session_id: id, to: "919800000006", type: "image", mediaId });
  await h.rt.deps.jobs.runDue();
  await until(() => h.rt.deps.db.prepare("SELECT 1 FROM messages WHERE id = ? AND status = 'sent'").get(r.body.data.id), "sent");
  await h.rt.deps.db.prepare("UPDATE messages SET network_message_id = 'GONEMEDIA' WHERE id = ?").run(r.body.data.id);
  rmSync(mediaPath(h.dataDir, h.ws.id, mediaId), { force: true });
  expect(await sock.config.getMessage({ id: "GONEMEDIA" })).toBeUndefined();
  expect(sock.uploads).toEqual([]);
  // the file is back but the session is not connected: nothing to upload through
  const second = await upload();
  await h.rt.deps.db.prepare("UPDATE messages SET media_id = ? WHERE id = ?").run(second, r.body.data.id);
  const getMessage = sock.config.getMessage;
  await h.call("POST", `/api/v1/chatapp/${id}/disconnect`);
  expect(await getMessage({ id: "GONEMEDIA" })).toBeUndefined();
  expect(sock.uploads).toEqual([]);
});
