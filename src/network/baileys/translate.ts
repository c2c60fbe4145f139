import {
  DisconnectReason as WA,
  getContentType,
  isJidBroadcast,
  isJidGroup,
  isJidNewsletter,
  isJidStatusBroadcast,
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
import { translateRich } from "./rich.ts";

// Pure translations of baileys' events into Parley's driver events, tested against recorded shapes.

/** What the driver does with one `connection.update`. */
export type ConnectionAction =
  | { kind: "qr"; qr: string }
  | { kind: "open" }
  | {
      kind: "close";
      reason: DisconnectReason;
      /**
       * now: a planned restart (after pairing); backoff: a transient failure; replaced: another
       * client took the link (440), retried under a loop guard; never: final
       */
      reconnect: "now" | "backoff" | "replaced" | "never";
      /** the link is dead: forget the credentials */
      wipe: boolean;
      statusCode: number | undefined;
      detail: string;
      /** the edge asked to wait this long (Retry-After on a refused upgrade) */
      retryAfterMs?: number;
    }
  | { kind: "none" };

/** The close code of a connection refused for its client version (baileys has no name for it). */
export const VERSION_REJECTED = 405;

/**
 * The error the driver closes a socket with when the WebSocket upgrade was answered with an
 * HTTP status instead of 101 (baileys ignores that answer and waits for its connect timeout).
 */
export function upgradeRefusal(status: number, retryAfter?: string | null): Error {
  const seconds = retryAfter && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined;
  return Object.assign(new Error(`the network's edge refused the WebSocket upgrade with HTTP ${status}`), {
    output: { statusCode: status },
    data: { upgradeStatus: status, ...(seconds !== undefined ? { retryAfterMs: seconds * 1000 } : {}) },
  });
}

/** The HTTP status of a refused upgrade (see upgradeRefusal), if that is what closed the socket. */
export function upgradeStatusOf(error: unknown): { status: number; retryAfterMs?: number } | undefined {
  const data = (error as { data?: { upgradeStatus?: unknown; retryAfterMs?: unknown } } | undefined)?.data;
  if (typeof data?.upgradeStatus !== "number") return undefined;
  return { status: data.upgradeStatus, ...(typeof data.retryAfterMs === "number" ? { retryAfterMs: data.retryAfterMs } : {}) };
}

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
    const close = (reason: DisconnectReason, reconnect: "now" | "backoff" | "replaced" | "never", wipe: boolean): ConnectionAction => ({
      kind: "close",
      reason,
      reconnect,
      wipe,
      statusCode,
      detail,
    });
    const refused = upgradeStatusOf(error);
    if (refused) {
      // not a stream error of an open socket: the edge turned the connection away (overload, maintenance, a block)
      return {
        kind: "close",
        reason: "edge_refused",
        reconnect: "backoff",
        wipe: false,
        statusCode,
        detail: `${detail}: the network's servers turned the connection away before it began; retrying with backoff`,
        ...(refused.retryAfterMs !== undefined ? { retryAfterMs: refused.retryAfterMs } : {}),
      };
    }
    switch (statusCode) {
      case WA.loggedOut:
        return close("logged_out", "never", true);
      case WA.forbidden:
        return close("banned", "never", true);
      case WA.connectionReplaced:
        return close("replaced", "replaced", false);
      case VERSION_REJECTED:
        // the network refuses this WhatsApp Web version: retrying with it cannot help
        return {
          kind: "close",
          reason: "version_rejected",
          reconnect: "never",
          wipe: false,
          statusCode,
          detail: `${detail}: the network refused this WhatsApp Web version (also a freshly fetched one); set waVersion to a current one (see docs/network-checklist.md)`,
        };
      case WA.restartRequired:
        return close("connection_lost", "now", false);
      case WA.multideviceMismatch:
        return close("error", "never", false);
      case WA.badSession:
        // transient at first; the driver stops after a few in a row (the link is broken: pair again)
        return close("connection_lost", "backoff", false);
      case WA.timedOut: // also connectionLost: both are 408
        if (!ctx.linked && ctx.qrShown) return close("pairing_timeout", "never", true);
        return close("connection_lost", "backoff", false);
      default:
        // 428 closed, 503 unavailable, socket errors: transient
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

/** Who a message is with: a phone number (digits), or a LID the driver still has to resolve. */
export type Counterpart = { phone: string } | { lid: string };

/**
 * The other side of a 1:1 chat: the phone-number JID when the key has one (v7 keys may address
 * by LID, with the number in `remoteJidAlt`), else the LID itself (`<digits>@lid`). LID digits
 * are never a phone number.
 */
export function counterpartOf(key: Pick<WAMessageKey, "remoteJid" | "remoteJidAlt">): Counterpart | undefined {
  const candidates = [key.remoteJid, key.remoteJidAlt].filter((j): j is string => !!j);
  const pn = candidates.find((j) => jidDecode(j)?.server === "s.whatsapp.net");
  if (pn) return { phone: phoneOfJid(pn)! };
  const lid = candidates.map((j) => jidDecode(j)).find((d) => d?.server === "lid" && d.user);
  return lid ? { lid: `${lid.user}@lid` } : undefined;
}

/**
 * A LID and the phone number behind it, from baileys' `lid-mapping.update` ({lid, pn} JIDs) or a
 * message key that carries both (remoteJid and remoteJidAlt): `<digits>@lid` and digits.
 */
export function lidPairOf(a: string | null | undefined, b: string | null | undefined): { lid: string; phone: string } | undefined {
  const decoded = [a, b].filter((j): j is string => !!j).map((j) => jidDecode(j));
  const lid = decoded.find((d) => d?.server === "lid" && d.user)?.user;
  const phone = decoded.find((d) => d?.server === "s.whatsapp.net" && d.user)?.user;
  return lid && phone && /^\d+$/.test(phone) ? { lid: `${lid}@lid`, phone } : undefined;
}

/** The sender's phone number when the key carries one (undefined for a LID-only key). */
export function senderOf(key: WAMessageKey): string | undefined {
  const c = counterpartOf(key);
  return c && "phone" in c ? c.phone : undefined;
}

/**
 * baileys' `shouldIgnoreJid`: chats Parley does not handle (groups, status updates, broadcast
 * lists, newsletters) are not decrypted at all, so they cost nothing and are never stored.
 */
export function shouldIgnoreJid(jid: string): boolean {
  return Boolean(isJidGroup(jid) || isJidBroadcast(jid) || isJidStatusBroadcast(jid) || isJidNewsletter(jid));
}

/** shouldIgnoreJid for a session whose `groups` setting may be on: its groups are decrypted then. */
export function ignoredChat(jid: string, groups: boolean): boolean {
  return groups && isJidGroup(jid) ? false : shouldIgnoreJid(jid);
}

function seconds(ts: unknown): number | undefined {
  if (typeof ts === "number") return ts;
  if (ts && typeof (ts as { toNumber?: unknown }).toNumber === "function") return (ts as { toNumber(): number }).toNumber();
  if (typeof ts === "string" && ts) return Number(ts);
  return undefined;
}

/** A message of a 1:1 chat without its media bytes, the counterpart to resolve, and what media to download. */
export interface InboundTranslation {
  message: Omit<InboundMessage, "media" | "from" | "group">;
  /** the contact; in a group, the member who wrote (empty for the owner's own group message) */
  counterpart: Counterpart;
  /** written in a group: the group's JID (`...@g.us`) */
  group?: string;
  /** written by the account's owner (from the phone or another linked device) */
  fromMe: boolean;
  /** what to download; `fileLength` as the message declares it (the cap is checked before downloading) */
  media?: { mimeType: string; filename?: string; fileLength?: number };
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
 * is never offered again). Own messages (`fromMe`) are handled too: the driver records those
 * the owner wrote from the phone and skips its own sends' echoes.
 */
export function shouldHandleUpsert(type: string, _msg?: Pick<WAMessage, "key">): boolean {
  return type === "notify" || type === "append";
}

/** The text kept in the thread in place of a message that could not be decrypted. */
export const UNDECRYPTABLE_TEXT = "this message could not be read on this device";

/**
 * A message of a 1:1 chat or a group that baileys could not decrypt: it upserts a stub without content
 * (`messageStubType` CIPHERTEXT, the error in `messageStubParameters`) after it has asked the
 * sender's device to send it again (a retry receipt); a copy that decrypts is upserted later
 * with the same key id. Null for anything else.
 */
export function translateUndecryptable(msg: WAMessage, now: Date): (InboundTranslation & { error: string }) | null {
  const key = msg.key;
  if (!key?.id || msg.message || msg.messageStubType !== proto.WebMessageInfo.StubType.CIPHERTEXT) return null;
  const server = key.remoteJid ? jidDecode(key.remoteJid)?.server : undefined;
  const group = server === "g.us" ? key.remoteJid! : undefined;
  if (server !== "s.whatsapp.net" && server !== "lid" && !group) return null;
  const counterpart = group ? groupSenderOf(key) : counterpartOf(key);
  if (!counterpart) return null;
  const ts = seconds(msg.messageTimestamp);
  return {
    ...(group ? { group } : {}),
    message: {
      networkMessageId: key.id,
      pushName: key.fromMe ? undefined : (msg.pushName ?? undefined),
      type: "text",
      text: UNDECRYPTABLE_TEXT,
      timestamp: ts ? new Date(ts * 1000) : now,
      undecryptable: true,
    },
    counterpart,
    fromMe: Boolean(key.fromMe),
    error: String(msg.messageStubParameters?.[0] ?? "no content"),
  };
}

/**
 * Who wrote a group message: the participant's phone-number JID when the key has one (rc14
 * keys name the member by LID in `participant`, with the number in `participantAlt`), else the
 * LID. The owner's own message needs no member: an empty phone.
 */
function groupSenderOf(key: WAMessageKey): Counterpart | undefined {
  const sender = counterpartOf({ remoteJid: key.participant, remoteJidAlt: key.participantAlt });
  return sender ?? (key.fromMe ? { phone: "" } : undefined);
}

/** One message of `messages.upsert` in a 1:1 chat or a group, or null for what Parley does not handle. */
export function translateInbound(msg: WAMessage, now: Date): InboundTranslation | null {
  const key = msg.key;
  if (!key?.id || !msg.message) return null;
  const server = key.remoteJid ? jidDecode(key.remoteJid)?.server : undefined;
  const group = server === "g.us" ? key.remoteJid! : undefined;
  if (server !== "s.whatsapp.net" && server !== "lid" && !group) return null; // broadcasts, newsletters
  const counterpart = group ? groupSenderOf(key) : counterpartOf(key);
  const content = normalizeMessageContent(msg.message);
  const kind = getContentType(content);
  if (!counterpart || !content || !kind) return null;
  const ts = seconds(msg.messageTimestamp);
  const base = { networkMessageId: key.id, pushName: key.fromMe ? undefined : (msg.pushName ?? undefined), timestamp: ts ? new Date(ts * 1000) : now };
  const out = (message: Omit<InboundTranslation["message"], keyof typeof base>, media?: InboundTranslation["media"]): InboundTranslation => ({
    message: { ...base, ...message },
    counterpart,
    ...(group ? { group } : {}),
    fromMe: Boolean(key.fromMe),
    ...(media ? { media } : {}),
  });
  if (kind === "conversation") return out({ type: "text", text: content.conversation ?? "" });
  if (kind === "extendedTextMessage") return out({ type: "text", text: content.extendedTextMessage?.text ?? "" });
  const rich = translateRich(content);
  if (rich) return out(rich);
  const type = MEDIA[kind];
  if (!type) return null; // stickers, polls, protocol messages
  const m = content[kind as "imageMessage" | "videoMessage" | "audioMessage" | "documentMessage"] as {
    caption?: string | null;
    mimetype?: string | null;
    fileName?: string | null;
    fileLength?: unknown;
  };
  const fileLength = seconds(m.fileLength);
  return out(
    { type, text: m.caption ?? undefined },
    { mimeType: m.mimetype ?? "application/octet-stream", filename: m.fileName ?? undefined, ...(fileLength !== undefined ? { fileLength } : {}) },
  );
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

export interface RejectionTranslation {
  networkMessageId: string;
  /** the network's code (463, 479, ...), or `error` when it gave none */
  code: string;
  /** the account is restricted (463): new sends would count against it */
  restricted: boolean;
  detail: string;
}

/** Server codes with a known meaning (baileys' SERVER_ERROR_CODES and NACK_REASONS). */
const REJECTIONS: Record<string, { restricted: boolean; text: string }> = {
  "463": { restricted: true, text: "the account is restricted from starting chats (463)" },
  "479": { restricted: false, text: "the network rejected the message as invalid (479: stale device session or bad address)" },
};

/**
 * `messages.update` of our own messages with status ERROR: baileys' bad ack (the server or the
 * recipient's device refused the message after it was sent). The code is the first stub parameter.
 */
export function translateRejections(updates: WAMessageUpdate[]): RejectionTranslation[] {
  const out: RejectionTranslation[] = [];
  for (const { key, update } of updates) {
    if (!key?.fromMe || !key.id || update.status !== S.ERROR) continue;
    const params = update.messageStubParameters ?? [];
    const code = params[0] ? String(params[0]) : "error";
    const known = REJECTIONS[code];
    const detail = [known?.text ?? `the network rejected the message (${code})`, ...params.slice(1)].join(": ");
    out.push({ networkMessageId: key.id, code, restricted: known?.restricted ?? false, detail });
  }
  return out;
}
