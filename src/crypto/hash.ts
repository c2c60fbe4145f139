import { nodeCrypto } from "../node/lazy.ts";

/** SHA-256 hex of a string (refresh, reset and API-key lookups: high-entropy secrets need no key). */
export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex");
}

/** HMAC-SHA256 hex keyed with a secret (codes and answers, provider signatures). */
export function hmacHex(secret: string, value: string): string {
  return new Bun.CryptoHasher("sha256", secret).update(value).digest("hex");
}

/** Constant-time equality of two hex digests (false for anything that is not hex of the same length). */
export function sameHex(a: string, b: string | null | undefined): boolean {
  if (!b || !/^[0-9a-f]+$/i.test(b)) return false;
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && nodeCrypto().timingSafeEqual(x, y);
}
