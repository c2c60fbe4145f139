import { seal, unseal } from "../../crypto/seal.ts";
import type { DB } from "../../db/store.ts";
import type { CredentialStore } from "../../network/driver.ts";
import { readKeys, wipeKeys, writeCredentialsDoc, writeKeys, type Fence } from "./keys-repo.ts";

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
 * every signal key a sealed row of `session_keys`. Each write is durable when its promise
 * resolves (one transaction per call). The calls of one store run one after another, in the
 * order they were made: a later creds document is never overwritten by an earlier one, and a
 * read sees every write asked for before it. `live()` false (the session was unlinked, deleted
 * or handed to another connect) turns writes into no-ops, so a socket's late words cannot
 * bring a wiped link back. With a `fence` (the lease the link was opened under), every write
 * checks the session's lease in its transaction: once another node took the session over,
 * the write does nothing and `fenced` is called (the link must close).
 */
export function sessionCredentialStore(
  deps: { db: DB; secrets: { credentialKey: string } },
  sessionId: string,
  live: () => boolean,
  fencing?: { fence: Fence; fenced: () => void },
): CredentialStore {
  const fence = fencing?.fence;
  const refused = (written: boolean) => {
    if (!written) fencing?.fenced();
  };
  const key = deps.secrets.credentialKey;
  let last: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = last.then(fn, fn);
    last = run.catch(() => {});
    return run;
  };
  return {
    save(doc) {
      return inOrder(async () => {
        if (live()) refused(await writeCredentialsDoc(deps.db, sessionId, encryptCredentials(key, sessionId, doc), fence));
      });
    },
    getKeys(type, ids) {
      return inOrder(async () => {
        const out: Record<string, string> = {};
        for (const [id, sealed] of await readKeys(deps.db, sessionId, type, ids)) {
          try {
            out[id] = unseal(key, sealed, keyAad(sessionId, type, id));
          } catch {
            // a value that does not open is a missing key: the network renegotiates that session
          }
        }
        return out;
      });
    },
    setKeys(changes) {
      return inOrder(async () => {
        if (!live() || changes.length === 0) return;
        const sealed = changes.map((c) => ({ type: c.type, id: c.id, sealed: c.value === null ? null : seal(key, c.value, keyAad(sessionId, c.type, c.id)) }));
        refused(await writeKeys(deps.db, sessionId, sealed, fence));
      });
    },
    clearKeys() {
      return inOrder(async () => {
        if (live()) refused(await wipeKeys(deps.db, sessionId, fence));
      });
    },
  };
}

/** Forgets every signal key of a session (its credentials were wiped). */
export async function wipeSessionKeys(deps: { db: DB }, sessionId: string): Promise<void> {
  await wipeKeys(deps.db, sessionId);
}
