import { afterAll, beforeAll, expect, test } from "bun:test";
import type { GroupMetadata } from "baileys";
import { harness, until, type Harness } from "./harness.ts";

// Group chats through the real BaileysDriver on the scripted socket, with baileys 7.0.0-rc14's
// shapes: group message keys name the member by LID in `participant` (its number, when the
// network gives it, in `participantAlt`); GroupMetadata participants carry `id`, `lid` and
// `phoneNumber`; the socket reads `cachedGroupMetadata` before a group send.

let h: Harness;
beforeAll(async () => {
  h = await harness({ driver: { watchdogMs: 0 } });
});
afterAll(async () => {
  await h.rt.close();
});

const GROUP = "120363025246125888@g.us";
const meta = (): GroupMetadata => ({
  id: GROUP,
  subject: "Delivery drivers",
  owner: "919800011111@s.whatsapp.net",
  addressingMode: "lid" as never,
  participants: [
    { id: "101010101010101@lid", phoneNumber: "919800011111@s.whatsapp.net", admin: "superadmin" },
    { id: "202020202020202@lid", admin: null },
    { id: "303030303030303@lid", admin: null },
  ],
});
const stored = async (networkId: string) => (await h.rt.deps.db.prepare("SELECT * FROM messages WHERE network_message_id = ?").get(networkId)) as any;
const groupMessage = (id: string, participant: string, pushName: string, text: string, participantAlt?: string) => ({
  key: { remoteJid: GROUP, fromMe: false, id, participant, ...(participantAlt ? { participantAlt } : {}), addressingMode: "lid" },
  pushName,
  message: { conversation: text },
  messageTimestamp: Math.floor(Date.now() / 1000),
});

test("groups off (the default): the socket ignores group chats and nothing of them is stored", async () => {
  const { sock } = await h.linkedSession();
  expect(sock.config.shouldIgnoreJid(GROUP)).toBe(true);
  expect(sock.config.shouldIgnoreJid("919811112222@s.whatsapp.net")).toBe(false);
  sock.groupMeta.set(GROUP, meta());
  sock.upsert([groupMessage("GOFF1", "101010101010101@lid", "Anil", "not kept", "919800011111@s.whatsapp.net")]);
  sock.upsert([{ key: { remoteJid: "919811113333@s.whatsapp.net", fromMe: false, id: "GOFF2" }, pushName: "P", message: { conversation: "kept" } }]);
  await until(async () => await stored("GOFF2"), "the person's message");
  expect(await stored("GOFF1")).toBeFalsy();
  expect(sock.groupMetadataCalls).toEqual([]);
});

test("groups on: three members' messages in one group conversation with each sender (LIDs mapped to phones where known), metadata fetched once and cached", async () => {
  const { id, sock } = await h.linkedSession();
  const on = await h.call("PATCH", `/api/v1/chatapp/${id}`, { settings: { groups: true } });
  expect(on.status).toBe(200);
  expect(sock.config.shouldIgnoreJid(GROUP)).toBe(false);
  expect(sock.config.shouldIgnoreJid("status@broadcast")).toBe(true);
  sock.groupMeta.set(GROUP, meta());
  sock.lids.set("202020202020202@lid", "919800022222:0@s.whatsapp.net");

  sock.upsert([groupMessage("G1", "101010101010101@lid", "Anil", "first", "919800011111@s.whatsapp.net")]);
  sock.upsert([groupMessage("G2", "202020202020202@lid", "Bina", "second")]);
  sock.upsert([groupMessage("G3", "303030303030303@lid", "Chand", "third")]);
  const rows = [await until(() => stored("G1"), "G1"), await until(() => stored("G2"), "G2"), await until(() => stored("G3"), "G3")];
  expect(rows.map((r) => [r.phone, r.participant, r.participant_name, r.body])).toEqual([
    [GROUP, "919800011111", "Anil", "first"],
    [GROUP, "919800022222", "Bina", "second"],
    [GROUP, "303030303030303@lid", "Chand", "third"],
  ]);
  expect(new Set(rows.map((r) => r.conversation_id)).size).toBe(1);
  expect(sock.groupMetadataCalls).toEqual([GROUP]); // once: the later messages read the cache

  const conv = (await h.call("GET", `/api/v1/inbox/conversations/${rows[0].conversation_id}`)).body.data;
  expect(conv).toMatchObject({ groupId: GROUP, groupName: "Delivery drivers", participants: ["919800011111", "919800022222", "303030303030303@lid"] });
  const received = h.appEvents.filter((e) => e.event === "message_received" && e.data.groupId === GROUP).map((e) => [e.data.participant, e.data.pushName]);
  expect(received).toEqual([["919800011111", "Anil"], ["919800022222", "Bina"], ["303030303030303@lid", "Chand"]]);

  // baileys' cachedGroupMetadata answers from the cache, and the socket's group events keep it current
  expect((await sock.config.cachedGroupMetadata(GROUP)).subject).toBe("Delivery drivers");
  sock.ev.emit("groups.update", [{ id: GROUP, subject: "Drivers (north)" }]);
  sock.ev.emit("group-participants.update", { id: GROUP, author: "101010101010101@lid", participants: [{ id: "404040404040404@lid", phoneNumber: "919800044444@s.whatsapp.net" }], action: "add" });
  sock.ev.emit("group-participants.update", { id: GROUP, author: "101010101010101@lid", participants: [{ id: "303030303030303@lid" }], action: "remove" });
  const cached = await sock.config.cachedGroupMetadata(GROUP);
  expect(cached.subject).toBe("Drivers (north)");
  expect(cached.participants.map((p: { id: string }) => p.id)).toEqual(["101010101010101@lid", "202020202020202@lid", "404040404040404@lid"]);

  // a reply to the group: sent to the group's JID, its metadata read from the cache (no new query)
  const send = await h.call("POST", "/api/v1/messages/send", { session_id: id, groupId: GROUP, type: "text", body: "on my way" });
  expect(send.status).toBe(202);
  await h.rt.deps.jobs.runDue();
  await until(() => sock.sent.length === 1, "sent");
  expect(sock.sent[0]!.jid).toBe(GROUP);
  expect(sock.groupMetadataCalls).toEqual([GROUP]);
  const out = await until(async () => (await h.rt.deps.db.prepare("SELECT status, conversation_id AS c FROM messages WHERE id = ?").get(send.body.data.id)) as any, "row");
  expect(out.c).toBe(rows[0].conversation_id);
});

test("GET groups lists the session's groups from the network, members' LIDs mapped to phones where known", async () => {
  const { id, sock } = await h.linkedSession();
  sock.groupMeta.set(GROUP, meta());
  sock.lids.set("303030303030303@lid", "919800033333@s.whatsapp.net");
  const r = await h.call("GET", `/api/v1/chatapp/${id}/groups`);
  expect(r.status).toBe(200);
  expect(r.body.data).toEqual([{ id: GROUP, name: "Delivery drivers", participants: ["919800011111", "202020202020202@lid", "919800033333"] }]);
  // the listing filled the cache: baileys' next group send needs no query
  expect((await sock.config.cachedGroupMetadata(GROUP)).id).toBe(GROUP);
  expect(sock.groupMetadataCalls).toEqual([]);
});

test("the owner writing in a group from the phone is recorded as an outbound message of the group conversation", async () => {
  const { id, sock } = await h.linkedSession();
  await h.call("PATCH", `/api/v1/chatapp/${id}`, { settings: { groups: true } });
  sock.groupMeta.set(GROUP, meta());
  sock.upsert([{ key: { remoteJid: GROUP, fromMe: true, id: "GECHO1", participant: "999999999999999@lid" }, message: { conversation: "from my phone" }, messageTimestamp: Math.floor(Date.now() / 1000) }]);
  const row = await until(() => stored("GECHO1"), "echo");
  expect(row).toMatchObject({ direction: "outbound", phone: GROUP, body: "from my phone", status: "sent", participant: null });
});

test("a member first known by LID whose number the network tells later: their group messages and the group's member list name the number", async () => {
  const { id, sock } = await h.linkedSession();
  await h.call("PATCH", `/api/v1/chatapp/${id}`, { settings: { groups: true } });
  sock.groupMeta.set(GROUP, meta());
  sock.upsert([groupMessage("GLID1", "303030303030303@lid", "Chand", "who am I")]);
  const before = await until(() => stored("GLID1"), "stored");
  expect(before.participant).toBe("303030303030303@lid");
  sock.ev.emit("lid-mapping.update", { lid: "303030303030303@lid", pn: "919800033333@s.whatsapp.net" });
  await until(async () => (await stored("GLID1")).participant === "919800033333", "participant rewritten");
  const conv = (await h.call("GET", `/api/v1/inbox/conversations/${before.conversation_id}`)).body.data;
  expect(conv.participants).toContain("919800033333");
  expect(conv.participants).not.toContain("303030303030303@lid");
  expect((await h.call("GET", `/api/v1/messages/${before.id}`)).body.data).toMatchObject({ from: "919800033333", participant: "919800033333", groupId: GROUP });
});

test("a group message that could not be decrypted keeps a placeholder in the group conversation, replaced by the copy sent again", async () => {
  const { id, sock } = await h.linkedSession();
  await h.call("PATCH", `/api/v1/chatapp/${id}`, { settings: { groups: true } });
  sock.groupMeta.set(GROUP, meta());
  const key = { remoteJid: GROUP, fromMe: false, id: "GBAD1", participant: "101010101010101@lid", participantAlt: "919800011111@s.whatsapp.net" };
  sock.upsert([{ key, messageTimestamp: 1767225600, pushName: "Anil", messageStubType: 2, messageStubParameters: ["No session"] } as never]);
  const placeholder = await until(async () => (await stored("GBAD1"))?.error_code === "undecryptable" && (await stored("GBAD1")), "placeholder");
  expect(placeholder).toMatchObject({ phone: GROUP, participant: "919800011111", participant_name: "Anil" });
  sock.upsert([{ key, messageTimestamp: 1767225600, pushName: "Anil", message: { conversation: "readable now" } }]);
  await until(async () => (await stored("GBAD1")).body === "readable now", "replaced");
  const received = h.appEvents.filter((e) => e.event === "message_received" && e.data.sessionId === id);
  expect(received.map((e) => [e.data.groupId, e.data.participant, e.data.text])).toEqual([[GROUP, "919800011111", "readable now"]]);
});
