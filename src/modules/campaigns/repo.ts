import { and, count, desc, eq, getTableColumns, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { campaignRecipients, campaigns, type CampaignStatus, type RecipientStatus } from "./table.ts";

export type CampaignRow = typeof campaigns.$inferSelect;
export type RecipientRow = typeof campaignRecipients.$inferSelect;
export type CampaignPatch = Partial<Omit<CampaignRow, "id" | "workspaceId" | "createdAt">>;

/** Inserts a campaign. */
export function insertCampaign(db: DB, workspaceId: string, row: Omit<typeof campaigns.$inferInsert, "workspaceId">): void {
  db.insert(campaigns).values({ ...row, workspaceId }).run();
}

/** One campaign of the workspace. */
export function findCampaign(db: DB, workspaceId: string, id: string): CampaignRow | undefined {
  return db.select().from(campaigns).where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.id, id))).get();
}

const { audience: _audience, ...leanColumns } = getTableColumns(campaigns);
/** A campaign without its audience (up to 10,000 contact ids of JSON): what the engine reads on every send. */
export type EngineRow = Omit<CampaignRow, "audience">;

const leanStmt = (db: DB) =>
  db
    .select(leanColumns)
    .from(campaigns)
    .where(and(eq(campaigns.workspaceId, sql.placeholder("ws")), eq(campaigns.id, sql.placeholder("id"))))
    .prepare();
const leanPrepared = new WeakMap<DB, ReturnType<typeof leanStmt>>();

/** One campaign of the workspace, without its audience (prepared: the hot path of sends and receipts). */
export function findEngineRow(db: DB, workspaceId: string, id: string): EngineRow | undefined {
  let stmt = leanPrepared.get(db);
  if (!stmt) leanPrepared.set(db, (stmt = leanStmt(db)));
  return stmt.get({ ws: workspaceId, id });
}

/** Changes a campaign; with `onlyIn`, only while its status is one of those (returns whether it changed). */
export function updateCampaign(db: DB, workspaceId: string, id: string, patch: CampaignPatch, onlyIn?: CampaignStatus[]): boolean {
  const r = db
    .update(campaigns)
    .set(patch)
    .where(
      and(
        eq(campaigns.workspaceId, workspaceId),
        eq(campaigns.id, id),
        onlyIn ? sql`${campaigns.status} IN (${sql.join(onlyIn.map((s) => sql`${s}`), sql`, `)})` : undefined,
      ),
    )
    .returning({ id: campaigns.id })
    .all();
  return r.length === 1;
}

/** Deletes a campaign (its recipients go with it; its messages stay, with their campaignId). */
export function deleteCampaign(db: DB, workspaceId: string, id: string): void {
  db.delete(campaigns).where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.id, id))).run();
}

/** A page of the workspace's campaigns, newest first. */
export function listCampaigns(db: DB, workspaceId: string, q: { status?: CampaignStatus; limit: number; offset: number }) {
  const where = and(eq(campaigns.workspaceId, workspaceId), q.status ? eq(campaigns.status, q.status) : undefined);
  const rows = db.select().from(campaigns).where(where).orderBy(desc(campaigns.id)).limit(q.limit).offset(q.offset).all();
  const total = db.select({ n: count() }).from(campaigns).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** A page of a campaign's recipients in materialisation order (the total comes from the campaign's counters). */
export function pageRecipients(db: DB, campaignId: string, q: { status?: RecipientStatus; limit: number; offset: number }): RecipientRow[] {
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
export function activeCampaigns(db: DB): { id: string; workspaceId: string; status: CampaignStatus; progressDirty: boolean }[] {
  return db
    .select({ id: campaigns.id, workspaceId: campaigns.workspaceId, status: campaigns.status, progressDirty: campaigns.progressDirty })
    .from(campaigns)
    .where(sql`${campaigns.status} IN ('running', 'scheduled') OR ${campaigns.progressDirty} = 1`)
    .all();
}

/** Running campaigns of a workspace that send through a session. */
export function runningWithSession(db: DB, workspaceId: string, sessionId: string): string[] {
  return db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.workspaceId, workspaceId),
        eq(campaigns.status, "running"),
        sql`EXISTS (SELECT 1 FROM json_each(${campaigns.sessionIds}) WHERE value = ${sessionId})`,
      ),
    )
    .all()
    .map((r) => r.id);
}
