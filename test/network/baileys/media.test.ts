import { expect, test } from "bun:test";
import { isVoiceNote, outboundContent, recipientJid, sendOptions, storedContent } from "../../../src/network/baileys/media.ts";
import { clientMessageId } from "../../../src/modules/messages/sender.ts";

test("Parley's client message id becomes the network message key id (a resend after a crash is the same message)", () => {
  const id = clientMessageId("01a201e9-8b52-76a6-9bad-eed57b3ae2c3");
  expect(id).toMatch(/^3EB0[0-9A-F]{36}$/);
  expect(clientMessageId("01a201e9-8b52-76a6-9bad-eed57b3ae2c3")).toBe(id);
  expect(sendOptions({ to: "919800000001", type: "text", text: "hi", clientMessageId: id })).toEqual({ messageId: id });
  expect(sendOptions({ to: "919800000001", type: "text", text: "hi" })).toEqual({});
});

test("outbound content: text, and media with a given thumbnail (no optional image library is needed)", () => {
  expect(outboundContent({ to: "919800000001", type: "text", text: "hi" })).toEqual({ text: "hi" });
  const data = new Uint8Array([1, 2]);
  const image = outboundContent({ to: "919800000001", type: "image", text: "cap", media: { data, mimeType: "image/png" } });
  expect(image).toMatchObject({ mimetype: "image/png", caption: "cap", jpegThumbnail: "" });
  expect(Buffer.isBuffer(image.image)).toBe(true);
  expect(outboundContent({ to: "1", type: "document", media: { data, mimeType: "application/pdf", filename: "a.pdf" } })).toMatchObject({
    fileName: "a.pdf",
    mimetype: "application/pdf",
  });
  expect(outboundContent({ to: "1", type: "audio", media: { data, mimeType: "audio/mpeg" } })).toEqual({ audio: Buffer.from(data), mimetype: "audio/mpeg" });
  expect(outboundContent({ to: "1", type: "video", media: { data, mimeType: "video/mp4" } })).toMatchObject({ jpegThumbnail: "" });
});

test("audio goes as a voice note (ptt, ogg/opus) when its type allows it, else as an audio file", () => {
  const data = new Uint8Array([1, 2]);
  for (const mimeType of ["audio/ogg", "audio/ogg; codecs=opus", 'audio/ogg; codecs="opus"', "audio/opus"]) {
    expect(isVoiceNote(mimeType)).toBe(true);
    expect(outboundContent({ to: "1", type: "audio", media: { data, mimeType } })).toEqual({ audio: Buffer.from(data), mimetype: "audio/ogg; codecs=opus", ptt: true });
  }
  for (const mimeType of ["audio/ogg; codecs=vorbis", "audio/mpeg", "audio/mp4", "audio/aac", "audio/webm"]) {
    expect(isVoiceNote(mimeType)).toBe(false);
    expect(outboundContent({ to: "1", type: "audio", media: { data, mimeType } })).not.toHaveProperty("ptt");
  }
});

test("a LID address is sent to as it is; digits become a phone-number JID", () => {
  expect(recipientJid("919800000001")).toBe("919800000001@s.whatsapp.net");
  expect(recipientJid("123456789012345@lid")).toBe("123456789012345@lid");
});

test("a retry request answered from the database: texts only (media would need the first upload's keys)", () => {
  expect(storedContent({ to: "1", type: "text", text: "hello" })).toEqual({ conversation: "hello" });
  expect(storedContent({ to: "1", type: "image", text: "cap" })).toBeUndefined();
});
