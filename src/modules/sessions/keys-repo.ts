import type { Database } from "bun:sqlite";

// The signal keys of one session (`session_keys`). System-level like `sessionForNetworkEvent`:
// only the session manager's credential store calls these, for a session it already owns.
// Raw prepared statements: baileys reads and writes keys for every message.

/** Sealed values of the given ids of one key type. */
export function readKeys(sqlite: Database, sessionId: string, type: string, ids: string[]): Map<string, string> {
  const q = sqlite.query<{ value: string }, [string, string, string]>("SELECT value FROM session_keys WHERE session_id = ? AND type = ? AND id = ?");
  const out = new Map<string, string>();
  for (const id of ids) {
    const row = q.get(sessionId, type, id);
    if (row) out.set(id, row.value);
  }
  return out;
}

/** Upserts (sealed value) and deletes (null) in one transaction. */
export function writeKeys(sqlite: Database, sessionId: string, changes: { type: string; id: string; sealed: string | null }[]): void {
  const put = sqlite.query("INSERT INTO session_keys (session_id, type, id, value) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, type, id) DO UPDATE SET value = excluded.value");
  const del = sqlite.query("DELETE FROM session_keys WHERE session_id = ? AND type = ? AND id = ?");
  sqlite.transaction(() => {
    for (const c of changes) {
      if (c.sealed === null) del.run(sessionId, c.type, c.id);
      else put.run(sessionId, c.type, c.id, c.sealed);
    }
  })();
}

/** Drops every key of a session (its link is gone). */
export function wipeKeys(sqlite: Database, sessionId: string): void {
  sqlite.query("DELETE FROM session_keys WHERE session_id = ?").run(sessionId);
}

/** Writes the sealed credentials document of a session. */
export function writeCredentialsDoc(sqlite: Database, sessionId: string, sealed: string): void {
  sqlite.query("UPDATE chat_sessions SET credentials = ? WHERE id = ?").run(sealed, sessionId);
}
