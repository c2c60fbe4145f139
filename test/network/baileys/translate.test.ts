import { describe, expect, test } from "bun:test";
import { Boom } from "@hapi/boom";
import { DisconnectReason } from "baileys";
import {
  counterpartOf,
  senderOf,
  shouldIgnoreJid,
  translateRejections,
  shouldHandleUpsert,
  translateConnectionUpdate,
  translateInbound,
  translateStatusUpdates,
  translateUserReceipts,
  upgradeRefusal,
} from "../../../src/network/baileys/translate.ts";

// Recorded shapes of baileys 7.0.0-rc14 events (as its socket emits them), fed to the pure translation layer.

const NOW = new Date("2026-01-01T00:00:00.000Z");
const linked = { linked: true, qrShown: false };
const linking = { linked: false, qrShown: false };
const close = (statusCode: number | undefined, message = "Connection Failure") => ({
  connection: "close" as const,
  lastDisconnect: { error: statusCode === undefined ? new Error(message) : new Boom(message, { statusCode }), date: NOW },
});

describe("connection.update", () => {
  test("qr, open and the in-between updates", () => {
    const qr = "2@8zAb1c2d3e,SUVMMJ5Ac+Zr4n2PZ2mXhN6d6nTLY0nZr0O4Tk8=,Hj2Cq4Pz8Vw=,Lx1Ko5Tt2Yb=,1";
    expect(translateConnectionUpdate({ qr }, linking)).toEqual({ kind: "qr", qr });
    expect(translateConnectionUpdate({ connection: "open" }, linked)).toEqual({ kind: "open" });
    expect(translateConnectionUpdate({ connection: "connecting", receivedPendingNotifications: false, qr: undefined }, linked).kind).toBe("none");
    expect(translateConnectionUpdate({ isNewLogin: true, qr: undefined }, linking).kind).toBe("none");
    expect(translateConnectionUpdate({ receivedPendingNotifications: true }, linked).kind).toBe("none");
  });

  test.each([
    ["loggedOut", DisconnectReason.loggedOut, linked, "logged_out", "never", true],
    ["forbidden (banned)", DisconnectReason.forbidden, linked, "banned", "never", true],
    ["connectionReplaced (reconnects under a loop guard)", DisconnectReason.connectionReplaced, linked, "replaced", "replaced", false],
    ["405: the WhatsApp Web version was refused", 405, linked, "version_rejected", "never", false],
    ["restartRequired (after pairing)", DisconnectReason.restartRequired, linked, "connection_lost", "now", false],
    ["connectionLost / timedOut", DisconnectReason.connectionLost, linked, "connection_lost", "backoff", false],
    ["connectionClosed", DisconnectReason.connectionClosed, linked, "connection_lost", "backoff", false],
    ["unavailableService", DisconnectReason.unavailableService, linked, "connection_lost", "backoff", false],
    ["badSession", DisconnectReason.badSession, linked, "connection_lost", "backoff", false],
    ["multideviceMismatch", DisconnectReason.multideviceMismatch, linked, "error", "never", false],
    ["QR refs attempts ended", DisconnectReason.timedOut, { linked: false, qrShown: true }, "pairing_timeout", "never", true],
    ["timed out before any QR", DisconnectReason.timedOut, linking, "connection_lost", "backoff", false],
  ] as const)("close %s", (_name, code, ctx, reason, reconnect, wipe) => {
    const a = translateConnectionUpdate(close(code), ctx);
    expect(a).toMatchObject({ kind: "close", reason, reconnect, wipe, statusCode: code });
    expect((a as { detail: string }).detail).toContain(String(code));
  });

  test("an upgrade the edge answered with HTTP 503 is its own reason, retried with backoff, with the edge's Retry-After", () => {
    const a = translateConnectionUpdate({ connection: "close", lastDisconnect: { error: upgradeRefusal(503, "30"), date: new Date() } }, linked);
    expect(a).toMatchObject({ kind: "close", reason: "edge_refused", reconnect: "backoff", wipe: false, statusCode: 503, retryAfterMs: 30_000 });
    expect((a as { detail: string }).detail).toContain("HTTP 503");
    // a 503 stream error of an open socket (unavailableService) stays a plain drop
    expect(translateConnectionUpdate(close(503), linked)).toMatchObject({ reason: "connection_lost" });
    expect(translateConnectionUpdate({ connection: "close", lastDisconnect: { error: upgradeRefusal(429, "soon"), date: new Date() } }, linking)).not.toHaveProperty("retryAfterMs");
  });

  test("a socket error without a Boom is transient", () => {
    expect(translateConnectionUpdate(close(undefined, "getaddrinfo ENOTFOUND web.whatsapp.com"), linked)).toMatchObject({
      kind: "close",
      reason: "connection_lost",
      reconnect: "backoff",
      statusCode: undefined,
    });
  });
});

describe("messages.upsert", () => {
  const key = { remoteJid: "919800000001@s.whatsapp.net", fromMe: false, id: "3EB0C431C26A1916E1A1" };

  test("a text (conversation) from a contact", () => {
    const t = translateInbound({ key, messageTimestamp: 1767225600, pushName: "Asha", message: { conversation: "hello" } }, NOW);
    expect(t).toEqual({
      message: { networkMessageId: key.id, pushName: "Asha", type: "text", text: "hello", timestamp: new Date(1767225600_000) },
      counterpart: { phone: "919800000001" },
      fromMe: false,
    });
  });

  test("extended text, an ephemeral wrapper and a Long timestamp", () => {
    const long = { low: 1767225600, high: 0, unsigned: true, toNumber: () => 1767225600 };
    const t = translateInbound(
      { key, messageTimestamp: long as never, message: { ephemeralMessage: { message: { extendedTextMessage: { text: "see https://x.y" } } } } },
      NOW,
    );
    expect(t?.message).toMatchObject({ type: "text", text: "see https://x.y", timestamp: new Date(1767225600_000) });
  });

  test("media: image with caption, document with its file name; media to download", () => {
    const img = translateInbound({ key, message: { imageMessage: { caption: "look", mimetype: "image/jpeg", url: "https://mmg.whatsapp.net/x" } } }, NOW);
    expect(img).toEqual({
      message: { networkMessageId: key.id, pushName: undefined, type: "image", text: "look", timestamp: NOW },
      counterpart: { phone: "919800000001" },
      fromMe: false,
      media: { mimeType: "image/jpeg", filename: undefined },
    });
    const doc = translateInbound({ key, message: { documentMessage: { fileName: "invoice.pdf", mimetype: "application/pdf" } } }, NOW);
    expect(doc?.message.type).toBe("document");
    expect(doc?.media).toEqual({ mimeType: "application/pdf", filename: "invoice.pdf" });
    expect(translateInbound({ key, message: { audioMessage: { mimetype: "audio/ogg; codecs=opus", ptt: true } } }, NOW)?.message.type).toBe("audio");
    expect(translateInbound({ key, message: { videoMessage: { mimetype: "video/mp4" } } }, NOW)?.message.type).toBe("video");
  });

  test("v7 LID addressing: the phone number comes from remoteJidAlt; a LID alone stays a LID, never a phone number", () => {
    const lidKey = { remoteJid: "123456789012345@lid", remoteJidAlt: "919800000001@s.whatsapp.net", fromMe: false, id: "AB12" };
    expect(senderOf(lidKey)).toBe("919800000001");
    expect(translateInbound({ key: lidKey, message: { conversation: "hi" } }, NOW)?.counterpart).toEqual({ phone: "919800000001" });
    expect(senderOf({ remoteJid: "123456789012345@lid", id: "AB13" })).toBeUndefined();
    expect(counterpartOf({ remoteJid: "123456789012345:7@lid" })).toEqual({ lid: "123456789012345@lid" });
    expect(translateInbound({ key: { remoteJid: "123456789012345@lid", id: "AB14" }, message: { conversation: "hi" } }, NOW)?.counterpart).toEqual({
      lid: "123456789012345@lid",
    });
  });

  test("the owner's own messages (written from the phone) are translated with fromMe and no push name", () => {
    const t = translateInbound({ key: { ...key, fromMe: true }, pushName: "Me", message: { conversation: "from my phone" } }, NOW);
    expect(t).toMatchObject({ fromMe: true, counterpart: { phone: "919800000001" }, message: { type: "text", text: "from my phone", pushName: undefined } });
  });

  test("shouldIgnoreJid: groups, status, broadcast lists and newsletters; 1:1 chats (PN and LID) are handled", () => {
    for (const jid of ["120363025246125888@g.us", "status@broadcast", "1234567890@broadcast", "120363144038483540@newsletter"]) expect(shouldIgnoreJid(jid)).toBe(true);
    for (const jid of ["919800000001@s.whatsapp.net", "123456789012345@lid"]) expect(shouldIgnoreJid(jid)).toBe(false);
  });

  test("media declares its size (fileLength, a Long) so the cap is checked before downloading", () => {
    const long = { low: 20_000_000, high: 0, unsigned: true, toNumber: () => 20_000_000 };
    const t = translateInbound({ key, message: { videoMessage: { mimetype: "video/mp4", fileLength: long as never } } }, NOW);
    expect(t?.media).toEqual({ mimeType: "video/mp4", filename: undefined, fileLength: 20_000_000 });
  });

  test("a group message names its group and its writer (the number from participantAlt when the key names a LID)", () => {
    const group = "120363025246125888@g.us";
    const byPn = translateInbound({ key: { ...key, remoteJid: group, participant: "919800000001@s.whatsapp.net" }, pushName: "Asha", message: { conversation: "group" } }, NOW);
    expect(byPn).toMatchObject({ group, counterpart: { phone: "919800000001" }, fromMe: false, message: { text: "group", pushName: "Asha" } });
    const byLid = translateInbound({ key: { ...key, remoteJid: group, participant: "101010101010101@lid", participantAlt: "919800000002@s.whatsapp.net" } as never, message: { conversation: "hi" } }, NOW);
    expect(byLid).toMatchObject({ group, counterpart: { phone: "919800000002" } });
    const lidOnly = translateInbound({ key: { ...key, remoteJid: group, participant: "101010101010101@lid" }, message: { conversation: "hi" } }, NOW);
    expect(lidOnly).toMatchObject({ group, counterpart: { lid: "101010101010101@lid" } });
    // a member's first message carries the sender key beside its content; a key alone is no message
    const skdm = { groupId: group, axolotlSenderKeyDistributionMessage: new Uint8Array([1, 2]) };
    expect(translateInbound({ key: { ...key, remoteJid: group, participant: "919800000001@s.whatsapp.net" }, message: { senderKeyDistributionMessage: skdm, conversation: "first" } }, NOW)).toMatchObject({ message: { type: "text", text: "first" } });
    expect(translateInbound({ key: { ...key, remoteJid: group, participant: "919800000001@s.whatsapp.net" }, message: { senderKeyDistributionMessage: skdm, messageContextInfo: {} } }, NOW)).toBeNull();
    // a member's message without a member is not a message Parley can place
    expect(translateInbound({ key: { ...key, remoteJid: group }, message: { conversation: "who?" } }, NOW)).toBeNull();
  });

  test("ignored: status broadcasts, stickers, protocol messages, empty stubs", () => {
    expect(translateInbound({ key, message: { stickerMessage: { mimetype: "image/webp" } } }, NOW)).toBeNull();
    expect(translateInbound({ key: { ...key, remoteJid: "status@broadcast" }, message: { conversation: "story" } }, NOW)).toBeNull();
    expect(translateInbound({ key, message: { protocolMessage: { type: 0 } } }, NOW)).toBeNull();
    expect(translateInbound({ key, messageStubType: 2 }, NOW)).toBeNull();
  });
});

describe("messages.upsert types", () => {
  // What baileys emits for a message the network kept while Parley was offline (the node has
  // `offline="1"`): messages-recv.js upserts it as `append`, after acknowledging it to the network.
  const offline = {
    type: "append" as const,
    messages: [
      {
        key: { remoteJid: "919800000001@s.whatsapp.net", fromMe: false, id: "3EB0OFFLINE0001" },
        messageTimestamp: 1767225500,
        pushName: "Asha",
        message: { conversation: "sent while you were away" },
      },
    ],
  };
  // sendMessage with emitOwnEvents echoes our own message as `append`
  const ownEcho = { type: "append" as const, messages: [{ key: { remoteJid: "919800000001@s.whatsapp.net", fromMe: true, id: "3EB0MINE" }, message: { conversation: "mine" } }] };

  test("a message queued while offline (append) is handled like a live one (notify)", () => {
    const handled = offline.messages.filter((m) => shouldHandleUpsert(offline.type, m)).map((m) => translateInbound(m, NOW));
    expect(handled).toEqual([
      {
        message: { networkMessageId: "3EB0OFFLINE0001", pushName: "Asha", type: "text", text: "sent while you were away", timestamp: new Date(1767225500_000) },
        counterpart: { phone: "919800000001" },
        fromMe: false,
      },
    ]);
    expect(shouldHandleUpsert("notify", offline.messages[0]!)).toBe(true);
  });

  test("own messages reach the driver (it skips the echoes of its own sends by id); other upsert kinds do not", () => {
    expect(shouldHandleUpsert(ownEcho.type, ownEcho.messages[0]!)).toBe(true);
    expect(translateInbound(ownEcho.messages[0]!, NOW)?.fromMe).toBe(true);
    expect(shouldHandleUpsert("history", ownEcho.messages[0]!)).toBe(false);
  });
});

describe("receipts", () => {
  const mine = { remoteJid: "919800000001@s.whatsapp.net", fromMe: true, id: "3EB0AA" };

  test("messages.update status numbers: 3 delivered, 4 read, 5 (played) read; others and inbound ignored", () => {
    const out = translateStatusUpdates(
      [
        { key: mine, update: { status: 2 } },
        { key: mine, update: { status: 3 } },
        { key: { ...mine, id: "3EB0BB" }, update: { status: 4 } },
        { key: { ...mine, id: "3EB0CC" }, update: { status: 5 } },
        { key: { ...mine, fromMe: false }, update: { status: 4 } },
        { key: mine, update: { starred: true } },
      ],
      NOW,
    );
    expect(out).toEqual([
      { networkMessageId: "3EB0AA", status: "delivered", at: NOW },
      { networkMessageId: "3EB0BB", status: "read", at: NOW },
      { networkMessageId: "3EB0CC", status: "read", at: NOW },
    ]);
  });

  test("message-receipt.update: read and played timestamps mean read, a receipt timestamp delivered", () => {
    const out = translateUserReceipts([
      { key: mine, receipt: { userJid: "919800000001@s.whatsapp.net", receiptTimestamp: 1767225601 } },
      { key: { ...mine, id: "3EB0BB" }, receipt: { userJid: "919800000001@s.whatsapp.net", receiptTimestamp: 1767225601, readTimestamp: 1767225609 } },
      { key: { ...mine, id: "3EB0CC" }, receipt: { userJid: "919800000001@s.whatsapp.net", playedTimestamp: 1767225610 } },
      { key: { ...mine, fromMe: false }, receipt: { userJid: "x", readTimestamp: 1 } },
    ]);
    expect(out).toEqual([
      { networkMessageId: "3EB0AA", status: "delivered", at: new Date(1767225601_000) },
      { networkMessageId: "3EB0BB", status: "read", at: new Date(1767225609_000) },
      { networkMessageId: "3EB0CC", status: "read", at: new Date(1767225610_000) },
    ]);
  });
});

describe("server rejections (bad acks)", () => {
  const mine = { remoteJid: "919800000001@s.whatsapp.net", fromMe: true, id: "3EB0AA" };

  test("status ERROR with the code as baileys' handleBadAck emits it: 463 restricts, 479 does not, others keep their code", () => {
    const out = translateRejections([
      { key: mine, update: { status: 0, messageStubParameters: ["463"] } },
      { key: { ...mine, id: "3EB0BB" }, update: { status: 0, messageStubParameters: ["479"] } },
      { key: { ...mine, id: "3EB0CC" }, update: { status: 0, messageStubParameters: ["463", "Account restricted"] } },
      { key: { ...mine, id: "3EB0DD" }, update: { status: 0, messageStubParameters: ["500"] } },
      { key: { ...mine, id: "3EB0EE" }, update: { status: 0 } },
      { key: { ...mine, id: "3EB0FF" }, update: { status: 3 } },
      { key: { ...mine, fromMe: false }, update: { status: 0, messageStubParameters: ["463"] } },
    ]);
    expect(out.map((r) => [r.networkMessageId, r.code, r.restricted])).toEqual([
      ["3EB0AA", "463", true],
      ["3EB0BB", "479", false],
      ["3EB0CC", "463", true],
      ["3EB0DD", "500", false],
      ["3EB0EE", "error", false],
    ]);
    expect(out[2]!.detail).toContain("Account restricted");
    expect(translateStatusUpdates([{ key: mine, update: { status: 0, messageStubParameters: ["463"] } }], NOW)).toEqual([]);
  });
});
