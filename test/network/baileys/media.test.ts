import { expect, test } from "bun:test";
import { outboundContent } from "../../../src/network/baileys/media.ts";

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
  expect(outboundContent({ to: "1", type: "audio", media: { data, mimeType: "audio/ogg" } })).toMatchObject({ mimetype: "audio/ogg" });
  expect(outboundContent({ to: "1", type: "video", media: { data, mimeType: "video/mp4" } })).toMatchObject({ jpegThumbnail: "" });
});
