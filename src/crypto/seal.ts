import { nodeCrypto } from "../node/lazy.ts";

// Values needed in clear later (network credentials, webhook secrets) cannot be hashed; at rest
// they are sealed with the data dir's key so a copied database alone does not reveal them.
const PREFIX = "v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyBytes(hexKey: string): Buffer {
  const key = Buffer.from(hexKey, "hex");
  if (key.length !== 32) throw new Error("the sealing key must be 32 bytes of hex");
  return key;
}

/**
 * AES-256-GCM with a 32-byte hex key. `aad` binds the value to its owner (e.g. a session id):
 * a sealed value copied onto another row does not open. Output: `v1:` + base64(iv | tag | ciphertext).
 */
export function seal(hexKey: string, plaintext: string, aad?: string): string {
  const { createCipheriv, randomBytes } = nodeCrypto();
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyBytes(hexKey), iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
}

/** Opens what `seal` wrote; throws when the key, the `aad` or the bytes do not match. */
export function unseal(hexKey: string, sealed: string, aad?: string): string {
  if (!sealed.startsWith(PREFIX)) throw new Error("unknown sealed format");
  const raw = Buffer.from(sealed.slice(PREFIX.length), "base64");
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error("sealed value is truncated");
  const decipher = nodeCrypto().createDecipheriv("aes-256-gcm", keyBytes(hexKey), raw.subarray(0, IV_BYTES));
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
}
