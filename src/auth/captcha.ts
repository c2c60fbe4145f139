import { randomFrom } from "../crypto/random.ts";
import { CAPTCHA_ALPHABET, fontGlyphs, GLYPH_H, GLYPH_W } from "./captcha-font.ts";

/** A freshly drawn challenge: the answer (kept only hashed) and its PNG. */
export interface CaptchaImage {
  answer: string;
  png: Uint8Array;
}

/** Makes captcha challenges; injected through `createRuntime` overrides so tests can know the answer. */
export interface CaptchaGenerator {
  generate(): CaptchaImage | Promise<CaptchaImage>;
}

export const CAPTCHA_LENGTH = 5;
const W = 180;
const H = 64;

type Rgb = [number, number, number];

/** The default generator: 5 random characters of the unambiguous alphabet, drawn with noise. */
export const imageCaptcha: CaptchaGenerator = {
  generate() {
    const answer = randomFrom(CAPTCHA_ALPHABET, CAPTCHA_LENGTH);
    return { answer, png: renderCaptcha(answer) };
  },
};

/**
 * Draws `text` as a PNG: a grainy background, two faint lines under the text, each glyph large,
 * slightly rotated, scaled and offset at random, a gentle wave through the whole line, and light
 * speckles. People read it at a glance; the jitter still defeats a plain template match. Nothing
 * darker than the background crosses the glyphs (that is what made U read as V).
 */
export function renderCaptcha(text: string): Uint8Array {
  const img = new Uint8Array(W * H * 4);
  const rnd = (a: number, b: number) => a + Math.random() * (b - a);
  const base: Rgb = [rnd(215, 250), rnd(215, 250), rnd(215, 250)];
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const shade = (x / W) * 20 - 10;
      plot(img, x, y, [base[0] + shade + rnd(-14, 14), base[1] - shade + rnd(-14, 14), base[2] + rnd(-14, 14)]);
    }
  for (let i = 0; i < 2; i++) line(img, rnd(0, W), rnd(0, H), rnd(0, W), rnd(0, H), randomInk(150, 200), 1);

  const wave = { amp: rnd(1, 2), freq: rnd(0.03, 0.06), phase: rnd(0, Math.PI * 2) };
  const slot = W / (text.length + 0.3);
  const glyphs = fontGlyphs();
  [...text.toUpperCase()].forEach((ch, i) => {
    const glyph = glyphs[ch];
    if (!glyph) throw new Error(`captcha font has no glyph for ${JSON.stringify(ch)}`);
    const cell = rnd(5.4, 6.2);
    const cellY = rnd(6.8, 7.6);
    const angle = rnd(-0.15, 0.15);
    const cx = slot * (i + 0.65) + rnd(-2, 2);
    const cy = H / 2 + rnd(-2, 2);
    const ink = randomInk(10, 80);
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const reach = Math.ceil(Math.max(GLYPH_W * cell, GLYPH_H * cellY));
    for (let y = Math.floor(cy - reach); y <= cy + reach; y++)
      for (let x = Math.floor(cx - reach); x <= cx + reach; x++) {
        // map the screen pixel back into the glyph's grid: rotation about its centre, then the wave
        const dy0 = y + wave.amp * Math.sin(x * wave.freq + wave.phase) - cy;
        const dx0 = x - cx;
        const gx = Math.floor((dx0 * cos + dy0 * sin) / cell + GLYPH_W / 2);
        const gy = Math.floor((-dx0 * sin + dy0 * cos) / cellY + GLYPH_H / 2);
        if (gx >= 0 && gx < GLYPH_W && gy >= 0 && gy < GLYPH_H && glyph[gy]![gx]) plot(img, x, y, ink);
      }
  });

  for (let i = 0; i < 150; i++) plot(img, Math.floor(rnd(0, W)), Math.floor(rnd(0, H)), randomInk(150, 255));

  // required on the first challenge, not imported: a server without captcha never loads pngjs (issue 13)
  const { PNG } = require("pngjs") as typeof import("pngjs");
  const png = new PNG({ width: W, height: H });
  png.data = Buffer.from(img.buffer);
  return new Uint8Array(PNG.sync.write(png));
}

/** A `data:` URI of a PNG. */
export function pngDataUri(png: Uint8Array): string {
  return "data:image/png;base64," + Buffer.from(png).toString("base64");
}

function randomInk(min: number, max: number): Rgb {
  return [min + Math.random() * (max - min), min + Math.random() * (max - min), min + Math.random() * (max - min)];
}

function plot(img: Uint8Array, x: number, y: number, c: Rgb): void {
  if (x < 0 || y < 0 || x >= W || y >= H) return;
  const i = (y * W + x) * 4;
  img[i] = clamp(c[0]);
  img[i + 1] = clamp(c[1]);
  img[i + 2] = clamp(c[2]);
  img[i + 3] = 255;
}

function clamp(v: number): number {
  return Math.max(0, Math.min(255, Math.round(v)));
}

function line(img: Uint8Array, x0: number, y0: number, x1: number, y1: number, c: Rgb, width: number): void {
  const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
  for (let s = 0; s <= steps; s++) {
    const x = Math.round(x0 + ((x1 - x0) * s) / steps);
    const y = Math.round(y0 + ((y1 - y0) * s) / steps);
    for (let w = 0; w < width; w++) plot(img, x, y + w, c);
  }
}
