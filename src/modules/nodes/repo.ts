import type { DB } from "../../db/store.ts";

export interface NodeRow {
  id: string;
  url: string | null;
  version: string;
  startedAt: number;
  lastSeenAt: number;
  stoppedAt: number | null;
}

const COLUMNS = `id, url, version, started_at AS "startedAt", last_seen_at AS "lastSeenAt", stopped_at AS "stoppedAt"`;

/** A node starts (or starts again under the same id): its row is written afresh. */
export async function registerNode(db: DB, n: { id: string; url: string | null; version: string; now: number }): Promise<void> {
  await db
    .prepare(
      `INSERT INTO nodes (id, url, version, started_at, last_seen_at, stopped_at) VALUES (?, ?, ?, ?, ?, NULL)
       ON CONFLICT (id) DO UPDATE SET url = excluded.url, version = excluded.version, started_at = excluded.started_at,
         last_seen_at = excluded.last_seen_at, stopped_at = NULL`,
    )
    .run(n.id, n.url, n.version, n.now, n.now);
}

/** The node's heartbeat. */
export async function touchNode(db: DB, id: string, now: number): Promise<void> {
  await db.prepare("UPDATE nodes SET last_seen_at = ? WHERE id = ?").run(now, id);
}

/** The node stopped cleanly. */
export async function nodeStopped(db: DB, id: string, now: number): Promise<void> {
  await db.prepare("UPDATE nodes SET stopped_at = ?, last_seen_at = ? WHERE id = ?").run(now, now, id);
}

/** Nodes that heartbeated since `since` and did not stop: the ones sharing the sessions. */
export async function liveNodeIds(db: DB, since: number): Promise<string[]> {
  const rows = await db.prepare<{ id: string }>("SELECT id FROM nodes WHERE last_seen_at >= ? AND stopped_at IS NULL ORDER BY id").all(since);
  return rows.map((r) => r.id);
}

/** Every node seen since `since`, oldest start first. */
export async function nodesSeenSince(db: DB, since: number): Promise<NodeRow[]> {
  return db.prepare<NodeRow>(`SELECT ${COLUMNS} FROM nodes WHERE last_seen_at >= ? ORDER BY started_at, id`).all(since);
}
