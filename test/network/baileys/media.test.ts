import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mediaPathFor, outboundContent, saveMedia } from "../../../src/network/baileys/media.ts";

test("inbound media lands under <dataDir>/media/<session>/ with a safe name and owner-only mode", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-media-"));
  const path = mediaPathFor(dataDir, "s1", "3EB0/../x", "image/jpeg");
  expect(path).toBe(join(dataDir, "media", "s1", "3EB0____x.jpg"));
  expect(mediaPathFor(dataDir, "s1", "A", "application/octet-stream", "Invoice.PDF")).toEndWith("A.pdf");
  expect(mediaPathFor(dataDir, "s1", "A", "application/x-unknown")).toEndWith("A.bin");
  expect(mediaPathFor(dataDir, "s1", "A", "audio/ogg; codecs=opus")).toEndWith("A.ogg");
  await saveMedia(path, new Uint8Array([1, 2, 3]));
  expect([...readFileSync(path)]).toEqual([1, 2, 3]);
  expect(statSync(path).mode & 0o777).toBe(0o600);
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
  expect(outboundContent({ to: "1", type: "audio", media: { data, mimeType: "audio/ogg" } })).toMatchObject({ mimetype: "audio/ogg" });
  expect(outboundContent({ to: "1", type: "video", media: { data, mimeType: "video/mp4" } })).toMatchObject({ jpegThumbnail: "" });
});
