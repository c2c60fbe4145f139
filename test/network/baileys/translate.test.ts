import { describe, expect, test } from "bun:test";
import { Boom } from "@hapi/boom";
import { DisconnectReason } from "baileys";
import {
  senderOf,
  shouldHandleUpsert,
  translateConnectionUpdate,
  translateInbound,
  translateStatusUpdates,
  translateUserReceipts,
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
    ["connectionReplaced", DisconnectReason.connectionReplaced, linked, "replaced", "never", false],
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
      message: { networkMessageId: key.id, from: "919800000001", pushName: "Asha", type: "text", text: "hello", timestamp: new Date(1767225600_000) },
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
      message: { networkMessageId: key.id, from: "919800000001", pushName: undefined, type: "image", text: "look", timestamp: NOW },
      media: { mimeType: "image/jpeg", filename: undefined },
    });
    const doc = translateInbound({ key, message: { documentMessage: { fileName: "invoice.pdf", mimetype: "application/pdf" } } }, NOW);
    expect(doc?.message.type).toBe("document");
    expect(doc?.media).toEqual({ mimeType: "application/pdf", filename: "invoice.pdf" });
    expect(translateInbound({ key, message: { audioMessage: { mimetype: "audio/ogg; codecs=opus", ptt: true } } }, NOW)?.message.type).toBe("audio");
    expect(translateInbound({ key, message: { videoMessage: { mimetype: "video/mp4" } } }, NOW)?.message.type).toBe("video");
  });

  test("v7 LID addressing: the phone number comes from remoteJidAlt", () => {
    const lidKey = { remoteJid: "123456789012345@lid", remoteJidAlt: "919800000001@s.whatsapp.net", fromMe: false, id: "AB12" };
    expect(senderOf(lidKey)).toBe("919800000001");
    expect(translateInbound({ key: lidKey, message: { conversation: "hi" } }, NOW)?.message.from).toBe("919800000001");
    expect(senderOf({ remoteJid: "123456789012345@lid", id: "AB13" })).toBe("123456789012345");
  });

  test("ignored: own messages, groups, status broadcasts, reactions, protocol messages, empty stubs", () => {
    expect(translateInbound({ key: { ...key, fromMe: true }, message: { conversation: "me" } }, NOW)).toBeNull();
    expect(translateInbound({ key: { ...key, remoteJid: "120363025246125888@g.us", participant: "919800000001@s.whatsapp.net" }, message: { conversation: "group" } }, NOW)).toBeNull();
    expect(translateInbound({ key: { ...key, remoteJid: "status@broadcast" }, message: { conversation: "story" } }, NOW)).toBeNull();
    expect(translateInbound({ key, message: { reactionMessage: { text: "👍", key } } }, NOW)).toBeNull();
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
      { message: { networkMessageId: "3EB0OFFLINE0001", from: "919800000001", pushName: "Asha", type: "text", text: "sent while you were away", timestamp: new Date(1767225500_000) } },
    ]);
    expect(shouldHandleUpsert("notify", offline.messages[0]!)).toBe(true);
  });

  test("our own echoed messages are not inbound, whatever the type", () => {
    expect(ownEcho.messages.filter((m) => shouldHandleUpsert(ownEcho.type, m))).toEqual([]);
    expect(shouldHandleUpsert("notify", ownEcho.messages[0]!)).toBe(false);
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
