import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { assertFeature } from "../billing/quota.ts";
import { getMediaRow } from "../media/service.ts";
import { findSegment } from "../segments/repo.ts";
import type { CampaignAudience, CampaignMessage, CreateCampaignBody, UpdateCampaignBody } from "./model.ts";
import { deleteCampaign, findCampaign, insertCampaign, listCampaigns, pageRecipients, updateCampaign, type CampaignRow } from "./repo.ts";
import type { CampaignStatus, RecipientStatus } from "./table.ts";
import { recipientView } from "./view.ts";
import { campaignOut } from "./waiting.ts";

type Deps = Pick<AppDeps, "db" | "clock">;

/** The campaign of the workspace, or 404. */
export async function requireCampaign(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): Promise<CampaignRow> {
  const c = await findCampaign(deps.db, workspaceId, id);
  if (!c) throw errors.notFound("Campaign");
  return c;
}

/** Ids a campaign refers to must be the workspace's own: another workspace's are 404 (docs/api.md). */
async function checkReferences(deps: Deps, workspaceId: string, v: { sessionIds?: string[]; message?: CampaignMessage; audience?: CampaignAudience }): Promise<void> {
  const session = deps.db.prepare("SELECT 1 AS x FROM chat_sessions WHERE workspace_id = ? AND id = ?");
  for (const id of v.sessionIds ?? []) if (!(await session.get(workspaceId, id))) throw errors.notFound("Session");
  if (v.message?.mediaId) await getMediaRow(deps, workspaceId, v.message.mediaId);
  if (v.audience?.segmentId && !(await findSegment(deps.db, workspaceId, v.audience.segmentId))) throw errors.notFound("Segment");
}

/**
 * POST /api/v1/campaigns: a draft (docs/contacts-and-campaigns.md). Campaigns are a plan feature. The references are
 * checked in the transaction that inserts, so none can go between the check and the insert.
 */
export async function createCampaign(deps: Deps, workspaceId: string, actorId: string | null, body: CreateCampaignBody) {
  const id = Bun.randomUUIDv7();
  await deps.db.tx(async () => {
    await assertFeature(deps, workspaceId, "campaigns");
    await checkReferences(deps, workspaceId, body);
    const now = deps.clock.now().getTime();
    await insertCampaign(deps.db, workspaceId, {
      id,
      name: body.name,
      status: "draft",
      sessionIds: body.sessionIds,
      message: body.message,
      audience: body.audience,
      schedule: body.schedule,
      pacing: body.pacing,
      mediaId: body.message.mediaId ?? null,
      createdBy: actorId,
      createdAt: now,
      updatedAt: now,
    });
  });
  return campaignOut(deps, await requireCampaign(deps, workspaceId, id));
}

/** PATCH: only a draft changes; pacing fields merge into the current ones (read and written in one transaction). */
export async function updateDraft(deps: Deps, workspaceId: string, id: string, body: UpdateCampaignBody) {
  await deps.db.tx(async () => {
    const c = await requireCampaign(deps, workspaceId, id);
    if (c.status !== "draft") throw errors.conflict(`Only a draft can be changed; this campaign is ${c.status}`);
    await checkReferences(deps, workspaceId, body);
    const patch: Partial<CampaignRow> = { updatedAt: deps.clock.now().getTime() };
    if (body.name !== undefined) patch.name = body.name;
    if (body.sessionIds !== undefined) patch.sessionIds = body.sessionIds;
    if (body.message !== undefined) Object.assign(patch, { message: body.message, mediaId: body.message.mediaId ?? null });
    if (body.audience !== undefined) patch.audience = body.audience;
    if (body.schedule !== undefined) patch.schedule = body.schedule;
    if (body.pacing !== undefined) {
      const given = Object.fromEntries(Object.entries(body.pacing).filter(([, v]) => v !== undefined));
      patch.pacing = { ...c.pacing, ...given };
    }
    if (!(await updateCampaign(deps.db, workspaceId, id, patch, ["draft"]))) throw errors.conflict("Only a draft can be changed");
  });
  return campaignOut(deps, await requireCampaign(deps, workspaceId, id));
}

const DELETABLE: CampaignStatus[] = ["draft", "completed", "cancelled", "failed"];

/** DELETE in draft, completed, cancelled or failed; its messages stay in the history with their campaignId. */
export async function removeCampaign(deps: Deps, workspaceId: string, id: string): Promise<void> {
  // the status is read and the row deleted in one transaction: a start cannot go between them
  await deps.db.tx(async () => {
    const c = await requireCampaign(deps, workspaceId, id);
    if (!DELETABLE.includes(c.status)) throw errors.conflict(`A ${c.status} campaign cannot be deleted; cancel it first`);
    await deleteCampaign(deps.db, workspaceId, id);
  });
}

/** One campaign. */
export async function getCampaign(deps: Deps, workspaceId: string, id: string) {
  return campaignOut(deps, await requireCampaign(deps, workspaceId, id));
}

/** A page of campaigns, newest first. */
export async function pageCampaigns(deps: Deps, workspaceId: string, q: { page: number; limit: number; status?: CampaignStatus }) {
  const { rows, total } = await listCampaigns(deps.db, workspaceId, { status: q.status, limit: q.limit, offset: (q.page - 1) * q.limit });
  const data = [];
  for (const c of rows) data.push(await campaignOut(deps, c));
  return { data, total };
}

/** A page of a campaign's recipients; the total comes from the campaign's counters (no count over the rows). */
export async function pageCampaignRecipients(deps: Deps, workspaceId: string, id: string, q: { page: number; limit: number; status?: RecipientStatus }) {
  const c = await requireCampaign(deps, workspaceId, id);
  const rows = await pageRecipients(deps.db, c.id, { status: q.status, limit: q.limit, offset: (q.page - 1) * q.limit });
  const total = q.status ? c[q.status] : c.total;
  return { data: rows.map(recipientView), total };
}
