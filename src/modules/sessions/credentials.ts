import { seal, unseal } from "../../crypto/seal.ts";

/** Seals network credentials; the session id is bound in, so they only open on their own row. */
export function encryptCredentials(hexKey: string, sessionId: string, plaintext: string): string {
  return seal(hexKey, plaintext, sessionId);
}

/** Opens what `encryptCredentials` wrote; throws when the key, the session or the bytes do not match. */
export function decryptCredentials(hexKey: string, sessionId: string, sealed: string): string {
  return unseal(hexKey, sealed, sessionId);
}
