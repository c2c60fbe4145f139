import { and, count, desc, eq, getTableColumns, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { campaignRecipients, campaigns, type CampaignStatus, type RecipientStatus } from "./table.ts";

export type CampaignRow = typeof campaigns.$inferSelect;
export type RecipientRow = typeof campaignRecipients.$inferSelect;
export type CampaignPatch = Partial<Omit<CampaignRow, "id" | "workspaceId" | "createdAt">>;

/** Inserts a campaign. */
export async function insertCampaign(db: DB, workspaceId: string, row: Omit<typeof campaigns.$inferInsert, "workspaceId">): Promise<void> {
  await db.insert(campaigns).values({ ...row, workspaceId }).run();
}

/** One campaign of the workspace. */
export async function findCampaign(db: DB, workspaceId: string, id: string): Promise<CampaignRow | undefined> {
  return db.select().from(campaigns).where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.id, id))).get();
}

/** The campaign's columns but its audience (read once, by the statement below: not at import, see db/lazy-table.ts). */
const leanColumns = () => {
  const { audience: _audience, ...lean } = getTableColumns(campaigns);
  return lean;
};
/** A campaign without its audience (up to 10,000 contact ids of JSON): what the engine reads on every send. */
export type EngineRow = Omit<CampaignRow, "audience">;

const leanStmt = preparedOnce((db) =>
  db
    .select(leanColumns())
    .from(campaigns)
    .where(and(eq(campaigns.workspaceId, sql.placeholder("ws")), eq(campaigns.id, sql.placeholder("id"))))
    .prepare(),
);

/** One campaign of the workspace, without its audience (prepared: the hot path of sends and receipts). */
export async function findEngineRow(db: DB, workspaceId: string, id: string): Promise<EngineRow | undefined> {
  return leanStmt(db).get({ ws: workspaceId, id });
}

/** Changes a campaign; with `onlyIn`, only while its status is one of those (returns whether it changed). */
export async function updateCampaign(db: DB, workspaceId: string, id: string, patch: CampaignPatch, onlyIn?: CampaignStatus[]): Promise<boolean> {
  const r = await db
    .update(campaigns)
    .set(patch)
    .where(
      and(
        eq(campaigns.workspaceId, workspaceId),
        eq(campaigns.id, id),
        onlyIn ? sql`${campaigns.status} IN (${sql.join(onlyIn.map((s) => sql`${s}`), sql`, `)})` : undefined,
      ),
    )
    .run();
  return r.changes === 1;
}

/** Deletes a campaign (its recipients go with it; its messages stay, with their campaignId). */
export async function deleteCampaign(db: DB, workspaceId: string, id: string): Promise<void> {
  await db.delete(campaigns).where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.id, id))).run();
}

/** A page of the workspace's campaigns, newest first. */
export async function listCampaigns(db: DB, workspaceId: string, q: { status?: CampaignStatus; limit: number; offset: number }) {
  const where = and(eq(campaigns.workspaceId, workspaceId), q.status ? eq(campaigns.status, q.status) : undefined);
  const rows = await db.select().from(campaigns).where(where).orderBy(desc(campaigns.id)).limit(q.limit).offset(q.offset).all();
  const total = (await db.select({ n: count() }).from(campaigns).where(where).get())?.n ?? 0;
  return { rows, total };
}

/** A page of a campaign's recipients in materialisation order (the total comes from the campaign's counters). */
export async function pageRecipients(db: DB, campaignId: string, q: { status?: RecipientStatus; limit: number; offset: number }): Promise<RecipientRow[]> {
  return db
    .select()
    .from(campaignRecipients)
    .where(and(eq(campaignRecipients.campaignId, campaignId), q.status ? eq(campaignRecipients.status, q.status) : undefined))
    .orderBy(campaignRecipients.id)
    .limit(q.limit)
    .offset(q.offset)
    .all();
}

/** Campaigns the engine must look after (after a restart, and as a safety net). */
export async function activeCampaigns(db: DB): Promise<{ id: string; workspaceId: string; status: CampaignStatus; progressDirty: boolean }[]> {
  // plain SQL: the server's start runs this sweep once, cold, while its first requests come in,
  // and building it with drizzle's query builder the first time cost more than the read
  const rows = await db
    .prepare<{ id: string; workspaceId: string; status: CampaignStatus; progressDirty: number | string }>(
      `SELECT id, workspace_id AS "workspaceId", status, progress_dirty AS "progressDirty" FROM campaigns
      WHERE status IN ('running', 'scheduled') OR progress_dirty = 1 OR (status = 'cancelled' AND pending > 0)`,
    )
    .all();
  // a flag kept as an integer (a bigint on PostgreSQL)
  return rows.map((r) => ({ ...r, progressDirty: Number(r.progressDirty) === 1 }));
}

/** Running campaigns of a workspace that send through a session. */
export async function runningWithSession(db: DB, workspaceId: string, sessionId: string): Promise<string[]> {
  // session_ids is a JSON array kept as text on both engines
  const uses =
    db.engine === "postgres"
      ? sql`${campaigns.sessionIds}::jsonb @> jsonb_build_array(CAST(${sessionId} AS text))`
      : sql`EXISTS (SELECT 1 FROM json_each(${campaigns.sessionIds}) WHERE value = ${sessionId})`;
  const rows = await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.status, "running"), uses))
    .all();
  return rows.map((r) => r.id);
}

/**
 * Brings a pending job of a dedupe key forward to `at` when it sleeps until later (the run
 * job of a campaign waiting out quiet hours or a daily cap). Joins the caller's transaction.
 */
export async function bringJobForward(db: DB, dedupeKey: string, at: number): Promise<void> {
  const earliest = db.engine === "postgres" ? "least" : "min";
  await db.prepare(`UPDATE jobs SET run_at = ${earliest}(run_at, ?) WHERE dedupe_key = ? AND status = 'pending'`).run(at, dedupeKey);
}

/** Appends one send's outcome ("s" or "f") to a campaign's latest outcomes, keeping the last `window`. */
export async function pushOutcome(db: DB, campaignId: string, outcome: string, window: number): Promise<void> {
  // SQLite's substr counts a negative start from the end; PostgreSQL's right() does that
  const kept = db.engine === "postgres" ? "right(recent_outcomes || ?, ?)" : "substr(recent_outcomes || ?, -?)";
  await db.prepare(`UPDATE campaigns SET recent_outcomes = ${kept} WHERE id = ?`).run(outcome, window, campaignId);
}
