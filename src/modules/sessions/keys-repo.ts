import type { DB } from "../../db/store.ts";
import { leaseHolder } from "./lease-repo.ts";

/** The lease a write is made under (docs/cluster.md): the write does nothing once the session's lease says otherwise. */
export interface Fence {
  nodeId: string;
  epoch: number;
}

/** Inside a transaction: whether the fence still matches the session's lease (no fence: always). */
async function fenceHolds(db: DB, sessionId: string, fence: Fence | undefined): Promise<boolean> {
  if (!fence) return true;
  const now = await leaseHolder(db, sessionId);
  return now !== undefined && now.nodeId === fence.nodeId && now.epoch === fence.epoch;
}

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

/** Upserts (sealed value) and deletes (null) in one transaction; false (nothing written) when the fence no longer holds. */
export async function writeKeys(db: DB, sessionId: string, changes: { type: string; id: string; sealed: string | null }[], fence?: Fence): Promise<boolean> {
  const put = db.prepare(PUT);
  const del = db.prepare(DEL);
  return db.tx(async () => {
    if (!(await fenceHolds(db, sessionId, fence))) return false;
    for (const c of changes) {
      if (c.sealed === null) await del.run(sessionId, c.type, c.id);
      else await put.run(sessionId, c.type, c.id, c.sealed);
    }
    return true;
  });
}

/** Drops every key of a session (its link is gone); false (nothing dropped) when the fence no longer holds. */
export async function wipeKeys(db: DB, sessionId: string, fence?: Fence): Promise<boolean> {
  const del = () => db.prepare("DELETE FROM session_keys WHERE session_id = ?").run(sessionId);
  if (!fence) return void (await del()), true;
  return db.tx(async () => {
    if (!(await fenceHolds(db, sessionId, fence))) return false;
    await del();
    return true;
  });
}

/** Writes the sealed credentials document of a session; false (nothing written) when the fence no longer holds. */
export async function writeCredentialsDoc(db: DB, sessionId: string, sealed: string, fence?: Fence): Promise<boolean> {
  const write = () => db.prepare("UPDATE chat_sessions SET credentials = ? WHERE id = ?").run(sealed, sessionId);
  if (!fence) return void (await write()), true;
  return db.tx(async () => {
    if (!(await fenceHolds(db, sessionId, fence))) return false;
    await write();
    return true;
  });
}

/** Inside a transaction: whether a write under `fence` may go ahead (the manager's own credential writes). */
export function fenceStillHolds(db: DB, sessionId: string, fence: Fence | undefined): Promise<boolean> {
  return fenceHolds(db, sessionId, fence);
}
