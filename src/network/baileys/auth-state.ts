import { BufferJSON, initAuthCreds, proto, type AuthenticationCreds, type AuthenticationState, type SignalDataTypeMap } from "baileys";
import type { CredentialStore } from "../driver.ts";

type KeyType = keyof SignalDataTypeMap;

/** The stored document: v2 holds only `creds` (keys are rows); v1 was one blob with every key. */
type StoredDoc = { v: 2; creds: AuthenticationCreds } | { v: 1; creds: AuthenticationCreds; keys: Record<string, Record<string, unknown>> };

/** The link's state for one socket; the session manager's store keeps it (sealed) in the database, never in files. */
export interface StoredAuthState {
  state: AuthenticationState;
  /** true once the phone accepted this device (QR or pairing code) */
  linked(): boolean;
  /** writes `creds` (on baileys' `creds.update`) */
  saveCreds(): Promise<void>;
}

const encode = (value: unknown) => JSON.stringify(value, BufferJSON.replacer);
const decode = (text: string) => JSON.parse(text, BufferJSON.reviver) as unknown;

/** The creds document as stored (v2). */
export function serializeCreds(creds: AuthenticationCreds): string {
  return encode({ v: 2, creds } satisfies StoredDoc);
}

/**
 * Opens a stored link (or starts a fresh one) over `store`. A v1 blob (every key inside one
 * document, before keys became rows) is migrated on first load: its keys are written as rows,
 * then the document is rewritten without them. A crash in between repeats the split, which is
 * idempotent.
 */
export async function loadAuthState(doc: string | null, store: CredentialStore): Promise<StoredAuthState> {
  const stored = doc ? (decode(doc) as StoredDoc) : null;
  if (stored && stored.v !== 1 && stored.v !== 2) throw new Error(`unknown credential format version ${String((stored as { v: unknown }).v)}`);
  const creds: AuthenticationCreds = stored?.creds ?? initAuthCreds();
  if (stored?.v === 1) {
    const changes: { type: string; id: string; value: string }[] = [];
    for (const [type, table] of Object.entries(stored.keys ?? {})) {
      for (const [id, value] of Object.entries(table ?? {})) if (value !== null && value !== undefined) changes.push({ type, id, value: encode(value) });
    }
    await store.setKeys(changes);
    await store.save(serializeCreds(creds));
  }
  const state: AuthenticationState = {
    creds,
    keys: {
      async get(type, ids) {
        const out: Record<string, unknown> = {};
        for (const [id, text] of Object.entries(await store.getKeys(type, ids))) {
          let value = decode(text);
          // baileys expects this one as a proto object, as its own file store does
          if (value && type === "app-state-sync-key") value = proto.Message.AppStateSyncKeyData.fromObject(value as object);
          if (value !== undefined && value !== null) out[id] = value;
        }
        return out as never;
      },
      async set(data) {
        const changes: { type: string; id: string; value: string | null }[] = [];
        for (const type of Object.keys(data) as KeyType[]) {
          for (const [id, value] of Object.entries(data[type] ?? {})) changes.push({ type, id, value: value === null || value === undefined ? null : encode(value) });
        }
        await store.setKeys(changes);
      },
      async clear() {
        await store.clearKeys();
      },
    },
  };
  return {
    state,
    linked: () => Boolean(state.creds.account && state.creds.me?.id),
    saveCreds: () => store.save(serializeCreds(state.creds)),
  };
}

/** A store in memory (a driver used without the session manager, and tests). */
export class MemoryCredentialStore implements CredentialStore {
  doc: string | null = null;
  keys = new Map<string, string>();
  writes = 0;

  async save(doc: string): Promise<void> {
    this.doc = doc;
  }
  async getKeys(type: string, ids: string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const id of ids) {
      const v = this.keys.get(`${type}/${id}`);
      if (v !== undefined) out[id] = v;
    }
    return out;
  }
  async setKeys(changes: { type: string; id: string; value: string | null }[]): Promise<void> {
    this.writes++;
    for (const c of changes) {
      if (c.value === null) this.keys.delete(`${c.type}/${c.id}`);
      else this.keys.set(`${c.type}/${c.id}`, c.value);
    }
  }
  async clearKeys(): Promise<void> {
    this.keys.clear();
  }
}
