import type { OutboundMessage } from "../driver.ts";

/** The options of baileys' `sendMessage`: Parley's client id becomes the message key id, so a resend is the same message. */
export function sendOptions(m: OutboundMessage): { messageId?: string } {
  return m.clientMessageId ? { messageId: m.clientMessageId } : {};
}

/** The content baileys' `sendMessage` takes for an outbound message. */
export function outboundContent(m: OutboundMessage): Record<string, unknown> {
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
      return { audio: data, mimetype };
    case "document":
      return { document: data, mimetype, fileName: m.media.filename ?? "document", caption: m.text };
  }
}
