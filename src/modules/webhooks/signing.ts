import { nodeCrypto } from "../../node/lazy.ts";
import { seal, unseal } from "../../crypto/seal.ts";

/** A new signing secret: 32 random bytes as hex (D9). */
export function newSecret(): string {
  return nodeCrypto().randomBytes(32).toString("hex");
}

/** `X-Webhook-Signature`: hex HMAC-SHA256 of the raw body, keyed with the secret (spec part 5). */
export function signatureHex(secret: string, body: string): string {
  return new Bun.CryptoHasher("sha256", secret).update(body).digest("hex");
}

/** Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC over `id.timestamp.body`, key = UTF-8 bytes of the hex secret (D9). */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return "v1," + new Bun.CryptoHasher("sha256", secret).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
}

/** Seals a signing secret with the data dir's key (it is needed in clear to sign, so it cannot be hashed). */
export function sealSecret(secret: string, keyHex: string): string {
  return seal(keyHex, secret);
}

/** Opens a sealed secret; throws when the key is wrong or the data was altered. */
export function openSecret(sealed: string, keyHex: string): string {
  return unseal(keyHex, sealed);
}
