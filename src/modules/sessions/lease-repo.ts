import type { DB } from "../../db/store.ts";

// The session leases (`session_leases`, docs/cluster.md). System-level like
// `sessionForNetworkEvent`: the lease keeper and the session manager work for every workspace,
// on sessions by id. Rows are never deleted while their
// session exists (a release sets `expires_at` to 0), so the epoch only ever grows and a fencing
// token once replaced can never match again. Each statement here is atomic by itself.

/** The sessions that should have a live link: connected, or dropped with a stored link (the restore rule). */
const RESTORABLE = `(s.status = 'connected' OR (s.status = 'disconnected' AND s.last_disconnect_reason = 'connection_lost'
  AND s.credentials IS NOT NULL AND s.phone_number IS NOT NULL))`;

/**
 * Takes the session's lease for `nodeId` when it is free (no row, or expired) or `force`d (a
 * user's connect on this node), with a new epoch. Resolves to the epoch, or null when another
 * node holds it.
 */
export async function acquireLease(db: DB, l: { sessionId: string; nodeId: string; now: number; expiresAt: number; force: boolean }): Promise<number | null> {
  const row = await db
    .prepare<{ epoch: number }>(
      `INSERT INTO session_leases (session_id, node_id, epoch, expires_at, acquired_at, linked_at) VALUES (?, ?, 1, ?, ?, NULL)
       ON CONFLICT (session_id) DO UPDATE SET node_id = excluded.node_id, epoch = session_leases.epoch + 1,
         expires_at = excluded.expires_at, acquired_at = excluded.acquired_at, linked_at = NULL
       WHERE ? = 1 OR session_leases.expires_at <= ?
       RETURNING epoch`,
    )
    .get(l.sessionId, l.nodeId, l.expiresAt, l.now, l.force ? 1 : 0, l.now);
  return row ? Number(row.epoch) : null;
}

/** Renews every live lease of the node; resolves to what it still holds (session and epoch). */
export async function renewLeases(db: DB, nodeId: string, now: number, expiresAt: number): Promise<Map<string, number>> {
  const rows = await db
    .prepare<{ sessionId: string; epoch: number }>(
      `UPDATE session_leases SET expires_at = ? WHERE node_id = ? AND expires_at > ? RETURNING session_id AS "sessionId", epoch`,
    )
    .all(expiresAt, nodeId, now);
  return new Map(rows.map((r) => [r.sessionId, Number(r.epoch)]));
}

/** Frees one lease, if it is still the node's with that epoch. */
export async function releaseLease(db: DB, sessionId: string, nodeId: string, epoch: number): Promise<void> {
  await db.prepare("UPDATE session_leases SET expires_at = 0, linked_at = NULL WHERE session_id = ? AND node_id = ? AND epoch = ?").run(sessionId, nodeId, epoch);
}

/**
 * Records whether the holder's link to the network is open now (`linkedAt`, ms) or not (null),
 * if the lease is still the node's with that epoch: what the session routes report as `live`.
 */
export async function markLinked(db: DB, sessionId: string, fence: { nodeId: string; epoch: number }, linkedAt: number | null): Promise<void> {
  await db.prepare("UPDATE session_leases SET linked_at = ? WHERE session_id = ? AND node_id = ? AND epoch = ?").run(linkedAt, sessionId, fence.nodeId, fence.epoch);
}

/** Of these sessions, those whose link is open on the node holding their unexpired lease. */
export async function liveLinks(db: DB, sessionIds: string[], now: number): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const marks = sessionIds.map(() => "?").join(", ");
  const rows = await db
    .prepare<{ id: string }>(`SELECT session_id AS "id" FROM session_leases WHERE session_id IN (${marks}) AND expires_at > ? AND linked_at IS NOT NULL`)
    .all(...sessionIds, now);
  return new Set(rows.map((r) => r.id));
}

/** Frees every lease of a node (its clean stop, or a new start under the same id). */
export async function releaseLeasesOf(db: DB, nodeId: string): Promise<number> {
  return (await db.prepare("UPDATE session_leases SET expires_at = 0, linked_at = NULL WHERE node_id = ? AND expires_at > 0").run(nodeId)).changes;
}

/**
 * Inside a transaction: the lease's holder and epoch now. On PostgreSQL the row is locked
 * (FOR SHARE) until the commit, so a takeover waits for the write it fences instead of
 * slipping in between the check and the write.
 */
export async function leaseHolder(db: DB, sessionId: string): Promise<{ nodeId: string; epoch: number } | undefined> {
  const row = await db
    .prepare<{ nodeId: string; epoch: number }>(
      `SELECT node_id AS "nodeId", epoch FROM session_leases WHERE session_id = ?${db.engine === "postgres" ? " FOR SHARE" : ""}`,
    )
    .get(sessionId);
  return row ? { nodeId: row.nodeId, epoch: Number(row.epoch) } : undefined;
}

/** Sessions that should be live but no node holds (no lease, or expired), with their last holder. */
export async function orphanSessions(db: DB, now: number, limit: number): Promise<{ id: string; lastNode: string | null }[]> {
  return db
    .prepare<{ id: string; lastNode: string | null }>(
      `SELECT s.id, l.node_id AS "lastNode" FROM chat_sessions s LEFT JOIN session_leases l ON l.session_id = s.id
       WHERE (l.session_id IS NULL OR l.expires_at <= ?) AND ${RESTORABLE} ORDER BY s.id LIMIT ?`,
    )
    .all(now, limit);
}

/** Sessions waiting for a QR scan whose holder is gone (no lease, or expired): their QR died with it. */
export async function stalePending(db: DB, now: number): Promise<string[]> {
  const rows = await db
    .prepare<{ id: string }>(
      `SELECT s.id FROM chat_sessions s LEFT JOIN session_leases l ON l.session_id = s.id
       WHERE s.status = 'qr_pending' AND (l.session_id IS NULL OR l.expires_at <= ?)`,
    )
    .all(now);
  return rows.map((r) => r.id);
}

/** How many sessions the cluster should hold: held now, or waiting for a holder. */
export async function sessionsToHold(db: DB, now: number): Promise<number> {
  const row = await db
    .prepare<{ n: number }>(
      `SELECT count(*) AS n FROM chat_sessions s LEFT JOIN session_leases l ON l.session_id = s.id
       WHERE l.expires_at > ? OR ${RESTORABLE}`,
    )
    .get(now);
  return Number(row?.n ?? 0);
}

/** Live leases: which node holds which session. */
export async function liveLeases(db: DB, now: number): Promise<{ sessionId: string; nodeId: string; epoch: number }[]> {
  const rows = await db
    .prepare<{ sessionId: string; nodeId: string; epoch: number }>(
      `SELECT session_id AS "sessionId", node_id AS "nodeId", epoch FROM session_leases WHERE expires_at > ? ORDER BY node_id, session_id`,
    )
    .all(now);
  return rows.map((r) => ({ ...r, epoch: Number(r.epoch) }));
}
