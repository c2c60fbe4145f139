import { timingSafeEqual } from "node:crypto";

/** SHA-256 hex of a string (refresh, reset and API-key lookups: high-entropy secrets need no key). */
export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex");
}

/** HMAC-SHA256 hex keyed with a server secret (low-entropy secrets: OTP codes, captcha answers). */
export function hmacHex(secret: string, value: string): string {
  return new Bun.CryptoHasher("sha256", secret).update(value).digest("hex");
}

/** Constant-time equality of two hex digests. */
export function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** `bytes` random bytes as base64url (32 bytes = 256 bits). */
export function randomToken(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** A uniformly random string of `length` digits (no modulo bias). */
export function randomDigits(length: number): string {
  let out = "";
  while (out.length < length) {
    const [b] = crypto.getRandomValues(new Uint8Array(1));
    if (b! < 250) out += String(b! % 10);
  }
  return out;
}

/** `length` characters drawn uniformly from `alphabet`. */
export function randomFrom(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    const [b] = crypto.getRandomValues(new Uint8Array(1));
    if (b! < limit) out += alphabet[b! % alphabet.length];
  }
  return out;
}
