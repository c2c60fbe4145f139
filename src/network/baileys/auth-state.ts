import { BufferJSON, initAuthCreds, proto, type AuthenticationCreds, type AuthenticationState, type SignalDataTypeMap } from "baileys";

type KeyTable = { [T in keyof SignalDataTypeMap]?: Record<string, SignalDataTypeMap[T]> };

interface Stored {
  v: 1;
  creds: AuthenticationCreds;
  keys: KeyTable;
}

/** The link's state in memory; the session manager keeps it (encrypted) in SQLite, never in files. */
export interface MemoryAuthState {
  state: AuthenticationState;
  /** true once the phone accepted this device (QR or pairing code) */
  linked(): boolean;
  /** The whole state as one string (Buffers kept by baileys' BufferJSON). */
  serialize(): string;
}

/** Parses stored credentials, or starts a fresh (unlinked) state; `onChange` fires on every key write. */
export function memoryAuthState(serialized: string | null, onChange: () => void): MemoryAuthState {
  const stored = serialized ? (JSON.parse(serialized, BufferJSON.reviver) as Stored) : null;
  if (stored && stored.v !== 1) throw new Error(`unknown credential format version ${String(stored.v)}`);
  const creds: AuthenticationCreds = stored?.creds ?? initAuthCreds();
  const keys: KeyTable = stored?.keys ?? {};
  const state: AuthenticationState = {
    creds,
    keys: {
      get(type, ids) {
        const table = (keys[type] ?? {}) as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const id of ids) {
          let value = table[id];
          // baileys expects this one as a proto object, as its own file store does
          if (value && type === "app-state-sync-key") value = proto.Message.AppStateSyncKeyData.fromObject(value as object);
          if (value !== undefined && value !== null) out[id] = value;
        }
        return out as never;
      },
      set(data) {
        for (const type of Object.keys(data) as (keyof SignalDataTypeMap)[]) {
          const table = ((keys[type] ??= {}) as Record<string, unknown>);
          for (const [id, value] of Object.entries(data[type] ?? {})) {
            if (value === null || value === undefined) delete table[id];
            else table[id] = value;
          }
        }
        onChange();
      },
      clear() {
        for (const type of Object.keys(keys)) delete keys[type as keyof KeyTable];
        onChange();
      },
    },
  };
  return {
    state,
    linked: () => Boolean(state.creds.account && state.creds.me?.id),
    serialize: () => JSON.stringify({ v: 1, creds: state.creds, keys } satisfies Stored, BufferJSON.replacer),
  };
}
