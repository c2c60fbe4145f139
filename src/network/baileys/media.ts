import type { WAMessage } from "baileys";
import { quotedOption, richContent } from "./rich-out.ts";
import type { OutboundMessage } from "../driver.ts";
import { isGroupAddress } from "../group-address.ts";

/** The options of baileys' `sendMessage`: Parley's client id becomes the message key id, so a resend is the same message. */
export function sendOptions(m: OutboundMessage): { messageId?: string; quoted?: WAMessage } {
  return { ...(m.clientMessageId ? { messageId: m.clientMessageId } : {}), ...quotedOption(m) };
}

/** A phone number's JID; the `<digits>@lid` address of a contact whose number the network hides, or a group's JID, as it is. */
export function recipientJid(to: string): string {
  return to.endsWith("@lid") || isGroupAddress(to) ? to : `${to}@s.whatsapp.net`;
}

/**
 * Whether audio can go as a voice note (ptt): the network plays voice notes only as Opus in
 * Ogg. `audio/ogg` without a codec is taken for Opus (what recorders write); Ogg Vorbis, MP3,
 * AAC and the rest go as audio files.
 */
export function isVoiceNote(mimeType: string): boolean {
  const [type, ...params] = mimeType.toLowerCase().split(";").map((s) => s.trim());
  const codecs = params.find((p) => p.startsWith("codecs="))?.slice(7).replace(/"/g, "");
  if (type === "audio/opus") return true;
  if (type !== "audio/ogg") return false;
  return !codecs || codecs === "opus";
}

/** The content baileys' `sendMessage` takes for an outbound message. */
export function outboundContent(m: OutboundMessage): Record<string, unknown> {
  const rich = richContent(m);
  if (rich) return rich;
  if (m.type === "text" || !m.media) return { text: m.text ?? "" };
  const data = Buffer.from(m.media.data);
  const mimetype = m.media.mimeType;
  // a given (empty) thumbnail keeps baileys from computing one with optional image libraries
  switch (m.type) {
    case "image":
      return { image: data, mimetype, caption: m.text, jpegThumbnail: "" };
    case "video":
      return { video: data, mimetype, caption: m.text, jpegThumbnail: "" };
    case "audio":
      return isVoiceNote(mimetype) ? { audio: data, mimetype: "audio/ogg; codecs=opus", ptt: true } : { audio: data, mimetype };
    case "document":
      return { document: data, mimetype, fileName: m.media.filename ?? "document", caption: m.text };
    default:
      return { text: m.text ?? "" };
  }
}

/**
 * The message content for the network's retry request, rebuilt from the database's copy of a
 * text. Media needs the upload keys of the first send, which are not stored: the driver
 * uploads the stored file again instead (SentLog's rebuild).
 */
export function storedContent(m: OutboundMessage): { conversation: string } | undefined {
  return m.type === "text" && m.text !== undefined ? { conversation: m.text } : undefined;
}
