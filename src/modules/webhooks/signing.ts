import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** A new signing secret: 32 random bytes as hex (D9). */
export function newSecret(): string {
  return randomBytes(32).toString("hex");
}

/** `X-Webhook-Signature`: hex HMAC-SHA256 of the raw body, keyed with the secret (spec part 5). */
export function signatureHex(secret: string, body: string): string {
  return new Bun.CryptoHasher("sha256", secret).update(body).digest("hex");
}

/** Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC over `id.timestamp.body`, key = UTF-8 bytes of the hex secret (D9). */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return "v1," + new Bun.CryptoHasher("sha256", secret).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
}

// Secrets are needed in clear to sign, so they cannot be hashed; at rest they are sealed with
// the data dir's key (AES-256-GCM) so a copied database alone does not reveal them.
const PREFIX = "v1:";

/** Seals a secret with the 32-byte hex key. */
export function sealSecret(secret: string, keyHex: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(keyHex, "hex"), iv);
  const ct = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString("base64");
}

/** Opens a sealed secret; throws when the key is wrong or the data was altered. */
export function openSecret(sealed: string, keyHex: string): string {
  if (!sealed.startsWith(PREFIX)) throw new Error("unknown secret format");
  const raw = Buffer.from(sealed.slice(PREFIX.length), "base64");
  const decipher = createDecipheriv("aes-256-gcm", Buffer.from(keyHex, "hex"), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}
