import { afterAll, beforeAll, expect, test } from "bun:test";
import { createCipheriv, createHmac, randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { getMediaKeys } from "baileys";
import { harness, until, type Harness } from "./harness.ts";

// What the driver hands to messaging, from baileys' event shapes to rows and events.

let h: Harness;
beforeAll(async () => {
  h = await harness({ driver: { watchdogMs: 0 } });
});
afterAll(async () => {
  await h.rt.close();
});

const msg = async (networkId: string) => (await h.rt.deps.db.prepare("SELECT * FROM messages WHERE network_message_id = ?").get(networkId)) as any;
const lid = "201575769710000@lid";

test("a LID sender whose number the socket's mapping knows is stored under the phone number", async () => {
  const { sock } = await h.linkedSession();
  sock.lids.set(lid, "919811112222:0@s.whatsapp.net");
  sock.upsert([{ key: { remoteJid: lid, fromMe: false, id: "LID1" }, pushName: "Ravi", message: { conversation: "hi" } }]);
  const m = await until(async () => (await msg("LID1")), "stored");
  expect(m).toMatchObject({ phone: "919811112222", direction: "inbound", body: "hi" });
});

test("an unknown LID stays the contact's address (never its digits as a phone number) and replies go to it", async () => {
  const { id, sock } = await h.linkedSession();
  sock.upsert([{ key: { remoteJid: lid, fromMe: false, id: "LID2" }, pushName: "Meera", message: { conversation: "who am I" } }]);
  const m = await until(async () => (await msg("LID2")), "stored");
  expect(m.phone).toBe(lid);
  const contact = await h.rt.deps.db.prepare("SELECT phone, push_name AS \"pushName\" FROM contacts WHERE workspace_id = ? AND phone = ?").get(h.ws.id, lid);
  expect(contact).toEqual({ phone: lid, pushName: "Meera" });
  expect(await h.rt.deps.db.prepare("SELECT count(*) AS n FROM contacts WHERE phone = '201575769710000'").get()).toEqual({ n: 0 });
  // the reply: POST send accepts the address as `to`, and the driver sends to the LID itself
  const r = await h.call("POST", "/api/v1/messages/send", { session_id: id, to: lid, type: "text", body: "hello" });
  expect(r.status).toBe(202);
  await h.rt.deps.jobs.runDue();
  await until(() => sock.sent.length === 1, "sent");
  expect(sock.sent[0]!.jid).toBe(lid);
  // the message list filters by that address too
  const list = await h.call("GET", `/api/v1/messages?phone=${encodeURIComponent(lid)}&sessionId=${id}`);
  expect(list.status).toBe(200);
  expect(list.body.data.map((m: any) => [m.direction, m.from ?? m.to])).toEqual([
    ["outbound", expect.any(String)],
    ["inbound", lid],
  ]);
  // a made-up address is still refused
  const bad = await h.call("POST", "/api/v1/messages/send", { session_id: id, to: "12@lidx", type: "text", body: "x" });
  expect(bad.status).toBe(400);
  expect(bad.body.errors.to).toBeDefined();
});

test("reactions, locations and contact cards are stored with a text rendering and a payload", async () => {
  const { sock } = await h.linkedSession();
  const from = "919833334444@s.whatsapp.net";
  sock.upsert([
    { key: { remoteJid: from, fromMe: false, id: "R1" }, message: { reactionMessage: { text: "👍", key: { id: "3EB0TARGET", fromMe: true, remoteJid: from } } } },
    { key: { remoteJid: from, fromMe: false, id: "L1" }, message: { locationMessage: { degreesLatitude: 12.9716, degreesLongitude: 77.5946, name: "Office", address: "MG Road" } } },
    {
      key: { remoteJid: from, fromMe: false, id: "C1" },
      message: { contactMessage: { displayName: "Asha", vcard: "BEGIN:VCARD\nVERSION:3.0\nFN:Asha\nTEL;type=CELL;waid=919800000001:+91 98000 00001\nEND:VCARD" } },
    },
  ]);
  const r = await until(async () => (await msg("R1")), "reaction");
  const l = await until(async () => (await msg("L1")), "location");
  const c = await until(async () => (await msg("C1")), "contact");
  expect([r.type, r.body, JSON.parse(r.payload)]).toEqual(["reaction", "👍", { emoji: "👍", removed: false, messageId: "3EB0TARGET", fromMe: true }]);
  expect([l.type, l.body]).toEqual(["location", "Location: 12.9716, 77.5946 (Office, MG Road)"]);
  expect(JSON.parse(l.payload)).toMatchObject({ latitude: 12.9716, longitude: 77.5946, name: "Office", address: "MG Road" });
  expect([c.type, c.body]).toEqual(["contact", "Contact: Asha +919800000001"]);
  expect(JSON.parse(c.payload).contacts[0]).toMatchObject({ name: "Asha", phones: ["919800000001"] });
  // the public API: same message shape, with `payload`; the webhook event carries it too
  const view = await h.call("GET", `/api/v1/messages/${l.id}`);
  expect(view.body.data).toMatchObject({ type: "location", body: l.body, payload: { latitude: 12.9716 } });
  const ev = h.appEvents.find((e) => e.event === "message_received" && e.data.messageId === c.id)!;
  expect(ev.data).toMatchObject({ type: "contact", text: c.body, payload: { contacts: [{ name: "Asha" }] } });
});

test("a message the owner sends from the phone is recorded as outbound (sent); Parley's own send is not recorded twice", async () => {
  const { id, sock } = await h.linkedSession();
  sock.upsert([{ key: { remoteJid: "919855556666@s.whatsapp.net", fromMe: true, id: "PHONE1" }, messageTimestamp: 1767225600, message: { conversation: "from my phone" } }]);
  const m = await until(async () => (await msg("PHONE1")), "echo stored");
  expect(m).toMatchObject({ direction: "outbound", status: "sent", phone: "919855556666", body: "from my phone", created_by: "phone", sent_at: 1767225600_000 });
  expect(h.appEvents.some((e) => e.event === "message_sent" && e.data.messageId === m.id)).toBe(true);
  // the same echo again (the network repeats) is stored once
  sock.upsert([{ key: { remoteJid: "919855556666@s.whatsapp.net", fromMe: true, id: "PHONE1" }, message: { conversation: "from my phone" } }]);

  const r = await h.call("POST", "/api/v1/messages/send", { session_id: id, to: "919855556666", type: "text", body: "from parley" });
  await h.rt.deps.jobs.runDue();
  await until(async () => (await h.rt.deps.db.prepare("SELECT status FROM messages WHERE id = ?").get(r.body.data.id) as any)?.status === "sent", "sent");
  await Bun.sleep(20);
  const rows = await h.rt.deps.db.prepare("SELECT body FROM messages WHERE session_id = ? AND direction = 'outbound' ORDER BY id").all(id);
  expect(rows).toEqual([{ body: "from my phone" }, { body: "from parley" }]);
});

test("inbound media declared over the cap is not downloaded; the message is stored without it", async () => {
  const { sock } = await h.linkedSession();
  sock.upsert([
    {
      key: { remoteJid: "919877778888@s.whatsapp.net", fromMe: false, id: "BIG1" },
      // a video of 40 MB (cap 16 MB): downloading would reach for the network; it must not even start
      message: { videoMessage: { mimetype: "video/mp4", caption: "too big", fileLength: 40_000_000, url: "https://mmg.whatsapp.net/never", mediaKey: Buffer.alloc(32) } },
    },
  ]);
  const m = await until(async () => (await msg("BIG1")), "stored");
  expect(m).toMatchObject({ type: "video", body: "too big", media_id: null });
});

test("inbound media: baileys' own download (encrypted, from a loopback media host) is streamed to a file and moved into place", async () => {
  // a 1x1 PNG, encrypted as the network stores media (AES-256-CBC + truncated HMAC, keys from mediaKey)
  const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082", "hex");
  const mediaKey = randomBytes(32);
  const { cipherKey, iv, macKey } = await getMediaKeys(mediaKey, "image");
  const c = createCipheriv("aes-256-cbc", cipherKey, iv);
  const enc = Buffer.concat([c.update(png), c.final()]);
  const mac = createHmac("sha256", macKey!).update(Buffer.concat([iv, enc])).digest().subarray(0, 10);
  const host = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(Buffer.concat([enc, mac])) });
  try {
    const { sock } = await h.linkedSession();
    sock.upsert([
      {
        key: { remoteJid: "919899990000@s.whatsapp.net", fromMe: false, id: "IMG1" },
        message: { imageMessage: { mimetype: "image/png", caption: "pixel", fileLength: png.length, url: `http://127.0.0.1:${host.port}/img`, mediaKey } },
      },
    ]);
    const m = await until(async () => (await msg("IMG1")), "stored");
    expect(m.media_id).not.toBeNull();
    const media = await h.rt.deps.db.prepare("SELECT mime_type AS mime, size, sha256 FROM media WHERE id = ?").get(m.media_id) as any;
    expect(media).toEqual({ mime: "image/png", size: png.length, sha256: new Bun.CryptoHasher("sha256").update(png).digest("hex") });
    expect(Buffer.from(await Bun.file(join(h.dataDir, "media", h.ws.id, m.media_id)).bytes()).equals(png)).toBe(true);
    // the download's temporary file was moved, not copied
    expect(readdirSync(join(h.dataDir, "media", ".incoming"))).toEqual([]);
  } finally {
    host.stop(true);
  }
});
