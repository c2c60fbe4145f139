import { count, desc, eq } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { campaigns } from "../campaigns/table.ts";

/** Message counts of one time bucket (bucket = floor(created_at / bucket size)). */
export interface BucketCounts {
  bucket: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  received: number;
}

// reactions and internal notes are not messages a person counts
const COUNTED = "type NOT IN ('reaction', 'note')";

const countsSql = (bucketMs: number, bySession: boolean) => `
SELECT created_at / ${bucketMs} AS bucket,
  SUM(CASE WHEN direction = 'outbound' AND sent_at IS NOT NULL THEN 1 ELSE 0 END) AS sent_n,
  SUM(CASE WHEN direction = 'outbound' AND (delivered_at IS NOT NULL OR read_at IS NOT NULL) THEN 1 ELSE 0 END) AS delivered_n,
  SUM(CASE WHEN direction = 'outbound' AND read_at IS NOT NULL THEN 1 ELSE 0 END) AS read_n,
  SUM(CASE WHEN direction = 'outbound' AND status = 'failed' THEN 1 ELSE 0 END) AS failed_n,
  SUM(CASE WHEN direction = 'inbound' THEN 1 ELSE 0 END) AS received_n
FROM messages
WHERE workspace_id = ? AND created_at >= ? AND created_at < ? AND ${COUNTED}${bySession ? " AND session_id = ?" : ""}
GROUP BY created_at / ${bucketMs}`;

type CountRow = { bucket: number | string; sent_n: number | string; delivered_n: number | string; read_n: number | string; failed_n: number | string; received_n: number | string };

/**
 * Messages created in [start, end) counted per bucket: outbound by how far they got, inbound
 * received. Reads the (workspace_id, created_at) index.
 */
export async function countMessages(db: DB, workspaceId: string, start: number, end: number, bucketMs: number, sessionId?: string): Promise<BucketCounts[]> {
  const params = sessionId ? [workspaceId, start, end, sessionId] : [workspaceId, start, end];
  const rows = await db.prepare<CountRow>(countsSql(bucketMs, sessionId !== undefined)).all(...params);
  return rows.map((r) => ({
    bucket: Number(r.bucket),
    sent: Number(r.sent_n),
    delivered: Number(r.delivered_n),
    read: Number(r.read_n),
    failed: Number(r.failed_n),
    received: Number(r.received_n),
  }));
}

const responsesSql = (bySession: boolean) => `
SELECT asked_at, answered_at FROM (
  SELECT m.created_at AS asked_at,
    (SELECT o.created_at FROM messages o
      WHERE o.workspace_id = m.workspace_id AND o.conversation_id = m.conversation_id AND o.id > m.id
        AND o.direction = 'outbound' AND o.campaign_id IS NULL AND o.type NOT IN ('reaction', 'note')
      ORDER BY o.id LIMIT 1) AS answered_at,
    (SELECT p.direction FROM messages p
      WHERE p.workspace_id = m.workspace_id AND p.conversation_id = m.conversation_id AND p.id < m.id
        AND p.type NOT IN ('reaction', 'note')
      ORDER BY p.id DESC LIMIT 1) AS before_direction
  FROM messages m
  WHERE m.workspace_id = ? AND m.created_at >= ? AND m.created_at < ? AND m.direction = 'inbound'
    AND m.type NOT IN ('reaction', 'note')${bySession ? " AND m.session_id = ?" : ""}
) waiting
WHERE answered_at IS NOT NULL AND (before_direction IS NULL OR before_direction <> 'inbound')`;

/**
 * First responses to inbound messages created in [start, end): for each inbound message that
 * opens a wait (the conversation's message before it is not inbound), when it came and when
 * the first outbound message after it (not a campaign's) was made. Unanswered ones are left out.
 * Each lookup walks the (workspace_id, conversation_id, id) index.
 */
export async function firstResponses(db: DB, workspaceId: string, start: number, end: number, sessionId?: string): Promise<{ askedAt: number; answeredAt: number }[]> {
  const params = sessionId ? [workspaceId, start, end, sessionId] : [workspaceId, start, end];
  const rows = await db.prepare<{ asked_at: number | string; answered_at: number | string }>(responsesSql(sessionId !== undefined)).all(...params);
  return rows.map((r) => ({ askedAt: Number(r.asked_at), answeredAt: Number(r.answered_at) }));
}

/** A page of the workspace's campaigns with their counters, newest first. */
export async function pageCampaignStats(db: DB, workspaceId: string, page: number, limit: number) {
  const where = eq(campaigns.workspaceId, workspaceId);
  const rows = await db
    .select({
      id: campaigns.id,
      name: campaigns.name,
      status: campaigns.status,
      total: campaigns.total,
      pending: campaigns.pending,
      sent: campaigns.sent,
      delivered: campaigns.delivered,
      read: campaigns.read,
      failed: campaigns.failed,
      skipped: campaigns.skipped,
      createdAt: campaigns.createdAt,
      startedAt: campaigns.startedAt,
      completedAt: campaigns.completedAt,
    })
    .from(campaigns)
    .where(where)
    .orderBy(desc(campaigns.id))
    .limit(limit)
    .offset((page - 1) * limit)
    .all();
  const total = (await db.select({ n: count() }).from(campaigns).where(where).get())?.n ?? 0;
  return { rows, total };
}
