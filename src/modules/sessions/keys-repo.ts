import type { DB } from "../../db/store.ts";

// The signal keys of one session (`session_keys`). System-level like `sessionForNetworkEvent`:
// only the session manager's credential store calls these, for a session it already owns.
// Raw prepared statements: baileys reads and writes keys for every message.

const READ = "SELECT value FROM session_keys WHERE session_id = ? AND type = ? AND id = ?";
const PUT = "INSERT INTO session_keys (session_id, type, id, value) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, type, id) DO UPDATE SET value = excluded.value";
const DEL = "DELETE FROM session_keys WHERE session_id = ? AND type = ? AND id = ?";

/** Sealed values of the given ids of one key type. */
export async function readKeys(db: DB, sessionId: string, type: string, ids: string[]): Promise<Map<string, string>> {
  const q = db.prepare<{ value: string }>(READ);
  const out = new Map<string, string>();
  for (const id of ids) {
    const row = await q.get(sessionId, type, id);
    if (row) out.set(id, row.value);
  }
  return out;
}

/** Upserts (sealed value) and deletes (null) in one transaction. */
export async function writeKeys(db: DB, sessionId: string, changes: { type: string; id: string; sealed: string | null }[]): Promise<void> {
  const put = db.prepare(PUT);
  const del = db.prepare(DEL);
  await db.tx(async () => {
    for (const c of changes) {
      if (c.sealed === null) await del.run(sessionId, c.type, c.id);
      else await put.run(sessionId, c.type, c.id, c.sealed);
    }
  });
}

/** Drops every key of a session (its link is gone). */
export async function wipeKeys(db: DB, sessionId: string): Promise<void> {
  await db.prepare("DELETE FROM session_keys WHERE session_id = ?").run(sessionId);
}

/** Writes the sealed credentials document of a session. */
export async function writeCredentialsDoc(db: DB, sessionId: string, sealed: string): Promise<void> {
  await db.prepare("UPDATE chat_sessions SET credentials = ? WHERE id = ?").run(sealed, sessionId);
}
