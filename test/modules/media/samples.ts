import { PNG } from "pngjs";

/** A real PNG image of w x h pixels. */
export function png(w = 2, h = 2): Uint8Array<ArrayBuffer> {
  const img = new PNG({ width: w, height: h });
  img.data.fill(200);
  return new Uint8Array(PNG.sync.write(img));
}

/** A PNG signature and header padded to `bytes` bytes (sniffs as image/png). */
export function bigPng(bytes: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes);
  out.set(png());
  return out;
}

/** A minimal PDF document. */
export function pdf(): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
}

/** An MP3 file: an ID3v2 tag followed by MPEG audio frames. */
export function mp3(): Uint8Array<ArrayBuffer> {
  const id3 = [0x49, 0x44, 0x33, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00];
  const frame = new Uint8Array(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return new Uint8Array([...id3, ...frame, ...frame, ...frame]);
}

/** An MP4 container head (ftyp box). */
export function mp4(): Uint8Array<ArrayBuffer> {
  const ftyp = [0, 0, 0, 0x18, ...new TextEncoder().encode("ftypisom"), 0, 0, 2, 0, ...new TextEncoder().encode("isomiso2")];
  const mdat = [0, 0, 0, 0x10, ...new TextEncoder().encode("mdat"), 1, 2, 3, 4, 5, 6, 7, 8];
  return new Uint8Array([...ftyp, ...mdat]);
}

/** Base64 of bytes. */
export const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
