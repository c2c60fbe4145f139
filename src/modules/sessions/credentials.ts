import type { Database } from "bun:sqlite";
import { seal, unseal } from "../../crypto/seal.ts";
import type { CredentialStore } from "../../network/driver.ts";
import { readKeys, wipeKeys, writeCredentialsDoc, writeKeys } from "./keys-repo.ts";

/** Seals network credentials; the session id is bound in, so they only open on their own row. */
export function encryptCredentials(hexKey: string, sessionId: string, plaintext: string): string {
  return seal(hexKey, plaintext, sessionId);
}

/** Opens what `encryptCredentials` wrote; throws when the key, the session or the bytes do not match. */
export function decryptCredentials(hexKey: string, sessionId: string, sealed: string): string {
  return unseal(hexKey, sealed, sessionId);
}

/** A key's value is bound to its session, type and id: a value copied onto another key does not open. */
const keyAad = (sessionId: string, type: string, id: string) => `${sessionId}\u0000${type}\u0000${id}`;

/**
 * The driver's store of one session's link: the main document sealed on the session row,
 * every signal key a sealed row of `session_keys`. Writes are synchronous (one transaction
 * per call). `live()` false (the session was unlinked, deleted or handed to another connect)
 * turns writes into no-ops, so a socket's late words cannot bring a wiped link back.
 */
export function sessionCredentialStore(
  deps: { sqlite: Database; secrets: { credentialKey: string } },
  sessionId: string,
  live: () => boolean,
): CredentialStore {
  const key = deps.secrets.credentialKey;
  return {
    save(doc) {
      if (live()) writeCredentialsDoc(deps.sqlite, sessionId, encryptCredentials(key, sessionId, doc));
    },
    getKeys(type, ids) {
      const out: Record<string, string> = {};
      for (const [id, sealed] of readKeys(deps.sqlite, sessionId, type, ids)) {
        try {
          out[id] = unseal(key, sealed, keyAad(sessionId, type, id));
        } catch {
          // a value that does not open is a missing key: the network renegotiates that session
        }
      }
      return out;
    },
    setKeys(changes) {
      if (!live() || changes.length === 0) return;
      writeKeys(
        deps.sqlite,
        sessionId,
        changes.map((c) => ({ type: c.type, id: c.id, sealed: c.value === null ? null : seal(key, c.value, keyAad(sessionId, c.type, c.id)) })),
      );
    },
    clearKeys() {
      if (live()) wipeKeys(deps.sqlite, sessionId);
    },
  };
}

/** Forgets every signal key of a session (its credentials were wiped). */
export function wipeSessionKeys(deps: { sqlite: Database }, sessionId: string): void {
  wipeKeys(deps.sqlite, sessionId);
}
