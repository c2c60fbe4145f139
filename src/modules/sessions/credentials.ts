import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyBytes(hexKey: string): Buffer {
  const key = Buffer.from(hexKey, "hex");
  if (key.length !== 32) throw new Error("the credential key must be 32 bytes of hex");
  return key;
}

/**
 * Encrypts network credentials with AES-256-GCM. The session id is bound as additional data,
 * so a ciphertext copied onto another session's row does not decrypt.
 * Output: `v1:` + base64(iv | tag | ciphertext).
 */
export function encryptCredentials(hexKey: string, sessionId: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyBytes(hexKey), iv);
  cipher.setAAD(Buffer.from(sessionId, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}

/** Decrypts what `encryptCredentials` wrote; throws when the key, the session or the bytes do not match. */
export function decryptCredentials(hexKey: string, sessionId: string, sealed: string): string {
  const [version, payload] = sealed.split(":", 2);
  if (version !== VERSION || !payload) throw new Error("unknown credential format");
  const raw = Buffer.from(payload, "base64");
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error("credential ciphertext is truncated");
  const decipher = createDecipheriv("aes-256-gcm", keyBytes(hexKey), raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(sessionId, "utf8"));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
}
