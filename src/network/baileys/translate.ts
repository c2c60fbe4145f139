import {
  DisconnectReason as WA,
  getContentType,
  jidDecode,
  normalizeMessageContent,
  proto,
  type ConnectionState,
  type MessageUserReceiptUpdate,
  type WAMessage,
  type WAMessageKey,
  type WAMessageUpdate,
} from "baileys";
import type { DisconnectReason, InboundMessage, MessageType } from "../driver.ts";

// Pure translations of baileys' events into Parley's driver events, tested against recorded shapes.

/** What the driver does with one `connection.update`. */
export type ConnectionAction =
  | { kind: "qr"; qr: string }
  | { kind: "open" }
  | {
      kind: "close";
      reason: DisconnectReason;
      /** now: a planned restart (after pairing); backoff: a transient failure; never: final */
      reconnect: "now" | "backoff" | "never";
      /** the link is dead: forget the credentials */
      wipe: boolean;
      statusCode: number | undefined;
      detail: string;
    }
  | { kind: "none" };

/** The HTTP-like status baileys puts on the error that closed the socket (a Boom), if any. */
export function statusCodeOf(error: unknown): number | undefined {
  const code = (error as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode;
  return typeof code === "number" ? code : undefined;
}

/**
 * Maps a `connection.update`. `qrShown` tells a pairing that ran out of QR codes (408 after
 * QRs) from a connection that timed out (408 before any QR).
 */
export function translateConnectionUpdate(u: Partial<ConnectionState>, ctx: { linked: boolean; qrShown: boolean }): ConnectionAction {
  if (u.connection === "close") {
    const error = u.lastDisconnect?.error;
    const statusCode = statusCodeOf(error);
    const detail = `${error?.message ?? "connection closed"}${statusCode ? ` (${statusCode})` : ""}`;
    const close = (reason: DisconnectReason, reconnect: "now" | "backoff" | "never", wipe: boolean): ConnectionAction => ({
      kind: "close",
      reason,
      reconnect,
      wipe,
      statusCode,
      detail,
    });
    switch (statusCode) {
      case WA.loggedOut:
        return close("logged_out", "never", true);
      case WA.forbidden:
        return close("banned", "never", true);
      case WA.connectionReplaced:
        return close("replaced", "never", false);
      case WA.restartRequired:
        return close("connection_lost", "now", false);
      case WA.multideviceMismatch:
        return close("error", "never", false);
      case WA.timedOut: // also connectionLost: both are 408
        if (!ctx.linked && ctx.qrShown) return close("pairing_timeout", "never", true);
        return close("connection_lost", "backoff", false);
      default:
        // 428 closed, 500 bad session, 503 unavailable, socket errors: transient
        return close("connection_lost", "backoff", false);
    }
  }
  if (u.connection === "open") return { kind: "open" };
  if (u.qr) return { kind: "qr", qr: u.qr };
  return { kind: "none" };
}

/** `919812345678:12@s.whatsapp.net` -> `919812345678`. */
export function phoneOfJid(jid: string | null | undefined): string | undefined {
  const decoded = jid ? jidDecode(jid) : undefined;
  return decoded?.user || undefined;
}

/** The sender's number: the phone-number JID when the key has one (v7 keys may address by LID). */
export function senderOf(key: WAMessageKey): string | undefined {
  const candidates = [key.remoteJid, key.remoteJidAlt].filter((j): j is string => !!j);
  const pn = candidates.find((j) => jidDecode(j)?.server === "s.whatsapp.net");
  return phoneOfJid(pn ?? candidates.find((j) => jidDecode(j)?.server === "lid"));
}

function seconds(ts: unknown): number | undefined {
  if (typeof ts === "number") return ts;
  if (ts && typeof (ts as { toNumber?: unknown }).toNumber === "function") return (ts as { toNumber(): number }).toNumber();
  if (typeof ts === "string" && ts) return Number(ts);
  return undefined;
}

/** An inbound message without its media bytes, and what media to download. */
export interface InboundTranslation {
  message: Omit<InboundMessage, "media">;
  media?: { mimeType: string; filename?: string };
}

const MEDIA: Partial<Record<string, MessageType>> = {
  imageMessage: "image",
  videoMessage: "video",
  audioMessage: "audio",
  documentMessage: "document",
};

/**
 * Whether the driver handles one message of a `messages.upsert` batch. `notify` is a message
 * received live; `append` is one the network queued while Parley was away (delivered with the
 * `offline` flag after a restart or reconnect, and already acknowledged to the network, so it
 * is never offered again). Our own messages (`fromMe`, echoed as `append`) are not inbound.
 */
export function shouldHandleUpsert(type: string, msg: Pick<WAMessage, "key">): boolean {
  return (type === "notify" || type === "append") && !msg.key?.fromMe;
}

/** One message of `messages.upsert` from a contact, or null for what Parley does not handle. */
export function translateInbound(msg: WAMessage, now: Date): InboundTranslation | null {
  const key = msg.key;
  if (!key?.id || key.fromMe || !msg.message) return null;
  const server = key.remoteJid ? jidDecode(key.remoteJid)?.server : undefined;
  if (server !== "s.whatsapp.net" && server !== "lid") return null; // groups, broadcasts, newsletters
  const from = senderOf(key);
  const content = normalizeMessageContent(msg.message);
  const kind = getContentType(content);
  if (!from || !content || !kind) return null;
  const ts = seconds(msg.messageTimestamp);
  const base = { networkMessageId: key.id, from, pushName: msg.pushName ?? undefined, timestamp: ts ? new Date(ts * 1000) : now };
  if (kind === "conversation") return { message: { ...base, type: "text", text: content.conversation ?? "" } };
  if (kind === "extendedTextMessage") return { message: { ...base, type: "text", text: content.extendedTextMessage?.text ?? "" } };
  const type = MEDIA[kind];
  if (!type) return null; // stickers, reactions, locations, protocol messages
  const m = content[kind as "imageMessage" | "videoMessage" | "audioMessage" | "documentMessage"] as {
    caption?: string | null;
    mimetype?: string | null;
    fileName?: string | null;
  };
  return {
    message: { ...base, type, text: m.caption ?? undefined },
    media: { mimeType: m.mimetype ?? "application/octet-stream", filename: m.fileName ?? undefined },
  };
}

export interface ReceiptTranslation {
  networkMessageId: string;
  status: "delivered" | "read";
  at: Date;
}

const S = proto.WebMessageInfo.Status;

/** `messages.update` of our own messages: status 3 (delivery ack) -> delivered, 4/5 (read, played) -> read. */
export function translateStatusUpdates(updates: WAMessageUpdate[], now: Date): ReceiptTranslation[] {
  const out: ReceiptTranslation[] = [];
  for (const { key, update } of updates) {
    if (!key?.fromMe || !key.id || update.status === undefined || update.status === null) continue;
    if (update.status === S.DELIVERY_ACK) out.push({ networkMessageId: key.id, status: "delivered", at: now });
    else if (update.status === S.READ || update.status === S.PLAYED) out.push({ networkMessageId: key.id, status: "read", at: now });
  }
  return out;
}

/** `message-receipt.update` (per-recipient receipts): read/played -> read, receipt -> delivered. */
export function translateUserReceipts(updates: MessageUserReceiptUpdate[]): ReceiptTranslation[] {
  const out: ReceiptTranslation[] = [];
  for (const { key, receipt } of updates) {
    if (!key?.fromMe || !key.id) continue;
    const read = seconds(receipt.readTimestamp) ?? seconds(receipt.playedTimestamp);
    const delivered = seconds(receipt.receiptTimestamp);
    if (read) out.push({ networkMessageId: key.id, status: "read", at: new Date(read * 1000) });
    else if (delivered) out.push({ networkMessageId: key.id, status: "delivered", at: new Date(delivered * 1000) });
  }
  return out;
}
