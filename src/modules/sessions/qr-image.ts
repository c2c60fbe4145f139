
const SCALE = 6;
const MARGIN = 4;

/**
 * Renders a QR string as a PNG data URI (docs/sessions.md: `qrDataUrl`). Synchronous: the session manager
 * renders it before the QR event's transaction, which waits on nothing but the store.
 */
export function qrDataUrl(text: string): string {
  // required on the first QR, not imported: a server that pairs nothing never loads them (issue 13)
  const { PNG } = require("pngjs") as typeof import("pngjs");
  const QRCode = require("qrcode") as typeof import("qrcode");
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" });
  const side = (modules.size + MARGIN * 2) * SCALE;
  const png = new PNG({ width: side, height: side });
  png.data = Buffer.alloc(side * side * 4, 0xff);
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (!modules.data[row * modules.size + col]) continue;
      for (let dy = 0; dy < SCALE; dy++) {
        for (let dx = 0; dx < SCALE; dx++) {
          const x = (col + MARGIN) * SCALE + dx;
          const y = (row + MARGIN) * SCALE + dy;
          const i = (y * side + x) * 4;
          png.data[i] = png.data[i + 1] = png.data[i + 2] = 0;
        }
      }
    }
  }
  // RGBA in, greyscale out: a smaller file
  return "data:image/png;base64," + PNG.sync.write(png, { colorType: 0, inputColorType: 6 }).toString("base64");
}
