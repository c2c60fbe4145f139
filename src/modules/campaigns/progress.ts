import type { AppDeps } from "../../deps.ts";
import { findEngineRow, updateCampaign, type CampaignPatch, type EngineRow } from "./repo.ts";
import type { RecipientStatus } from "./table.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "clock" | "jobs">;

export const PROGRESS_JOB = "campaigns.progress";
/** At most one campaign_progress per campaign this often while only the counts move (docs/contacts-and-campaigns.md). */
export const PROGRESS_INTERVAL_MS = 5_000;

/** campaign_progress data (docs/contacts-and-campaigns.md): the counters of one commit, so they always add up to total. */
export function progressData(c: EngineRow) {
  return {
    campaignId: c.id,
    status: c.status,
    pausedReason: c.pausedReason,
    total: c.total,
    pending: c.pending,
    sent: c.sent,
    delivered: c.delivered,
    read: c.read,
    failed: c.failed,
    skipped: c.skipped,
  };
}

/** Publishes campaign_progress from the row as it is in this transaction. Call inside `db.tx`. */
export async function publishProgress(deps: Deps, workspaceId: string, id: string): Promise<void> {
  const now = deps.clock.now().getTime();
  await updateCampaign(deps.db, workspaceId, id, { progressAt: now, progressDirty: false });
  const c = await findEngineRow(deps.db, workspaceId, id);
  if (c) await deps.bus.publish(workspaceId, "campaign_progress", progressData(c));
}

/** A status change: written and announced at once (inside `db.tx`). */
export async function changeStatus(deps: Deps, c: Pick<EngineRow, "id" | "workspaceId">, patch: CampaignPatch): Promise<void> {
  await updateCampaign(deps.db, c.workspaceId, c.id, { ...patch, updatedAt: deps.clock.now().getTime() });
  await publishProgress(deps, c.workspaceId, c.id);
}

/**
 * Counts moved: announce now if the last announcement is 5 s old, else mark the campaign dirty
 * and make sure a progress job announces it when the 5 s are up (trailing edge). Inside `db.tx`.
 */
export async function countsMoved(deps: Deps, workspaceId: string, id: string): Promise<void> {
  const row = await deps.db.prepare<{ at: number | null }>("SELECT progress_at AS at FROM campaigns WHERE id = ?").get(id);
  if (!row) return;
  const now = deps.clock.now().getTime();
  if (row.at === null || now - row.at >= PROGRESS_INTERVAL_MS) return publishProgress(deps, workspaceId, id);
  await deps.db.prepare("UPDATE campaigns SET progress_dirty = 1 WHERE id = ?").run(id);
  await deps.jobs.enqueue(PROGRESS_JOB, { workspaceId, campaignId: id }, { dedupeKey: `${PROGRESS_JOB}:${id}`, runAt: new Date(row.at + PROGRESS_INTERVAL_MS) });
}

/** The progress job: announces a dirty campaign (or comes back when 5 s have not passed yet). */
export async function flushProgress(deps: Deps, workspaceId: string, id: string): Promise<number> {
  return deps.db.tx(async () => {
    const c = await findEngineRow(deps.db, workspaceId, id);
    if (!c || !c.progressDirty) return 0;
    const wait = (c.progressAt ?? 0) + PROGRESS_INTERVAL_MS - deps.clock.now().getTime();
    if (wait > 0) return wait;
    await publishProgress(deps, workspaceId, id);
    return 0;
  });
}

const COUNTERS: ReadonlySet<RecipientStatus> = new Set(["pending", "sent", "delivered", "read", "failed", "skipped"]);

/** Moves `n` recipients' worth of counters from one status to another (the sum stays total). */
export async function moveCounter(deps: Pick<AppDeps, "db">, id: string, from: RecipientStatus, to: RecipientStatus, n = 1): Promise<void> {
  if (!COUNTERS.has(from) || !COUNTERS.has(to) || n === 0) return;
  await deps.db.prepare(`UPDATE campaigns SET "${from}" = "${from}" - ?, "${to}" = "${to}" + ? WHERE id = ?`).run(n, n, id);
}
