import { nodeCrypto } from "../../node/lazy.ts";
import { seal, unseal } from "../../crypto/seal.ts";

/** A new signing secret: 32 random bytes as hex (docs/webhooks.md). */
export function newSecret(): string {
  return nodeCrypto().randomBytes(32).toString("hex");
}

/**
 * A secret's HMAC-SHA256, keyed once: each signature copies it instead of keying a new one (the
 * key schedule is two of the hash's blocks, and a delivery signs twice). Never updated itself.
 */
export type Signer = Bun.CryptoHasher;

/** The keyed HMAC of a secret, to sign with many times. */
export function signerFor(secret: string): Signer {
  return new Bun.CryptoHasher("sha256", secret);
}

/** A fresh HMAC for one signature: a copy of the keyed one, or keyed now from the secret. */
function hmac(key: string | Signer): Bun.CryptoHasher {
  return typeof key === "string" ? new Bun.CryptoHasher("sha256", key) : key.copy();
}

/** `X-Webhook-Signature`: hex HMAC-SHA256 of the raw body, keyed with the secret (docs/webhooks.md). */
export function signatureHex(secret: string | Signer, body: string): string {
  return hmac(secret).update(body).digest("hex");
}

/** Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC over `id.timestamp.body`, key = UTF-8 bytes of the hex secret (docs/webhooks.md). */
export function standardSignature(secret: string | Signer, id: string, timestampSeconds: number, body: string): string {
  return "v1," + hmac(secret).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
}

/** Seals a signing secret with the data dir's key (it is needed in clear to sign, so it cannot be hashed). */
export function sealSecret(secret: string, keyHex: string): string {
  return seal(keyHex, secret);
}

/** Opens a sealed secret; throws when the key is wrong or the data was altered. */
export function openSecret(sealed: string, keyHex: string): string {
  return unseal(keyHex, sealed);
}
