import { countSkippedAtStart } from "./send-metric.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { CampaignAudience } from "./model.ts";
import { countsMoved } from "./progress.ts";
import { findCampaign, updateCampaign, type CampaignRow } from "./repo.ts";
import { segmentWindow, windowEnd, type SegmentFilter } from "../segments/filter.ts";
import { findSegment } from "../segments/repo.ts";
import { giveWay, sliceBudget, sliceDone } from "../../yield.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "clock" | "jobs">;

/**
 * Recipients written per transaction at most: contacts a filter audience's batch walks (matching
 * or not), ids a list's batch reads. A batch takes a few ms, so materialising never holds the
 * event loop long; the loop gives way between batches.
 */
export const MATERIALIZE_BATCH = 250;

interface AudienceContact {
  id: string;
  phone: string;
  optedOut: number;
  /** the cursor once this row is written, where the batch may stop early (its slice of time spent); absent: the batch is written whole */
  after?: string;
}

/**
 * One batch of the audience after `cursor`, in a stable order, so materialising can stop after
 * any batch (a crash) and go on from the cursor. `next` is null after the last batch.
 */
type AudienceReader = (cursor: string | null, limit: number) => Promise<{ rows: AudienceContact[]; next: string | null }>;

function contactIdsReader(deps: Deps, workspaceId: string, ids: string[]): AudienceReader {
  // the list is at most 10,000 ids: sorted once, walked by position; repeats stay (they become `duplicate` skips)
  const sorted = [...ids].sort();
  const byId = deps.db.prepare<AudienceContact>('SELECT id, phone, opted_out AS "optedOut" FROM contacts WHERE workspace_id = ? AND id = ?');
  return async (cursor, limit) => {
    const from = cursor === null ? 0 : Number(cursor);
    const slice = sorted.slice(from, from + limit);
    const rows: AudienceContact[] = [];
    for (const [i, id] of slice.entries()) {
      const r = await byId.get(workspaceId, id);
      if (r) rows.push({ ...r, after: String(from + i + 1) });
    }
    const end = from + slice.length;
    return { rows, next: end < sorted.length ? String(end) : null };
  };
}

/** A segment or filter audience an earlier build staged: the first rows left in campaign_audience (each batch deletes what it took). */
function stagedReader(deps: Deps, campaignId: string): AudienceReader {
  const q = deps.db.prepare<AudienceContact>(
    'SELECT contact_id AS id, phone, 0 AS "optedOut" FROM campaign_audience WHERE campaign_id = ? ORDER BY contact_id LIMIT ?',
  );
  const consume = deps.db.prepare("DELETE FROM campaign_audience WHERE campaign_id = ? AND contact_id <= ?");
  return async (_cursor, limit) => {
    const rows = await q.all(campaignId, limit);
    if (rows.length) await consume.run(campaignId, rows[rows.length - 1]!.id);
    return { rows, next: rows.length === limit ? "staged" : null };
  };
}

/**
 * A segment or filter audience: the opted-in contacts matching the filter as it was at start,
 * evaluated at the start time, created by then; a window of MATERIALIZE_BATCH opted-in contacts
 * per batch (matching or not), so a batch costs the same whatever the filter selects. The
 * cursor is the window's last contact id.
 */
function filterReader(deps: Deps, c: CampaignRow): AudienceReader {
  const filter = c.audienceFilter as SegmentFilter;
  const at = c.startedAt ?? 0;
  return async (cursor, limit) => {
    const afterId = cursor ?? "";
    const untilId = await windowEnd(deps.db, c.workspaceId, afterId, limit);
    const rows = await segmentWindow(deps.db, c.workspaceId, filter, at, { afterId, untilId, createdBy: at });
    return { rows: rows.map((r) => ({ id: r.id, phone: r.phone, optedOut: 0, after: r.id })), next: untilId };
  };
}

/** The reader of a campaign's audience: its contact ids, its filter's windows, or the rows an earlier build staged. */
export function audienceReader(deps: Deps, c: CampaignRow): AudienceReader {
  const audience = c.audience as CampaignAudience;
  if (audience.contactIds) return contactIdsReader(deps, c.workspaceId, audience.contactIds);
  if (c.audienceFilter) return filterReader(deps, c);
  return stagedReader(deps, c.id);
}

/**
 * The filter a segment or filter audience is materialised with, read in the start transaction
 * and kept on the campaign (`audienceFilter`), so a later change of the segment cannot move the
 * audience; null for a list of contact ids. A segment deleted meanwhile refuses the start (409).
 */
export async function audienceFilterAtStart(deps: Pick<AppDeps, "db">, c: CampaignRow): Promise<SegmentFilter | null> {
  const audience = c.audience as CampaignAudience;
  if (audience.segmentId) {
    const segment = await findSegment(deps.db, c.workspaceId, audience.segmentId);
    if (!segment) throw errors.conflict("The campaign's segment no longer exists; choose another audience");
    return segment.filter as SegmentFilter;
  }
  return audience.filter ?? null;
}

const running = new Map<string, Promise<void>>();

/**
 * Freezes a campaign's audience into recipient rows, batch by batch, each batch one transaction
 * with the cursor that says where the next begins: safe to stop at any point and to run again.
 * Opted-out contacts become `skipped` (`opted_out`); a phone already in the campaign becomes a
 * `skipped` (`duplicate`) row. One run per campaign at a time in this process (and the cursor
 * is read and moved in each batch's transaction, so another node's run cannot take a batch twice).
 */
export function materialize(deps: Deps, workspaceId: string, campaignId: string): Promise<void> {
  const prior = running.get(campaignId);
  if (prior) return prior;
  const run = materializeNow(deps, workspaceId, campaignId).finally(() => running.delete(campaignId));
  running.set(campaignId, run);
  return run;
}

async function materializeNow(deps: Deps, workspaceId: string, campaignId: string): Promise<void> {
  for (;;) {
    const done = await deps.db.tx(async () => {
      const batch = await materializeBatch(deps, workspaceId, campaignId);
      if (batch.moved) await countsMoved(deps, workspaceId, campaignId);
      return batch.done;
    });
    if (done) return;
    await giveWay(); // let requests and sends in between batches
  }
}

/**
 * One batch of recipients with the counters and the cursor, in one transaction (the caller's, else its own).
 * `moved` says whether the counters changed (the caller announces it); `done` whether
 * nothing is left (or there is nothing to do: cancelled, deleted, already done).
 */
export async function materializeBatch(deps: Deps, workspaceId: string, campaignId: string): Promise<{ done: boolean; moved: boolean }> {
  // the cursor is read and moved with the rows it covers: never apart
  if (!deps.db.inTx) return deps.db.tx(() => materializeBatch(deps, workspaceId, campaignId));
  const c = await findCampaign(deps.db, workspaceId, campaignId);
  // cancelled (or deleted) meanwhile: the audience stays as far as it got
  if (!c || c.materializedAt !== null || c.status === "cancelled" || c.status === "draft") return { done: true, moved: false };
  const { rows, next } = await audienceReader(deps, c)(c.materializeCursor, MATERIALIZE_BATCH);
  const insert = deps.db.prepare(
    `INSERT INTO campaign_recipients (id, campaign_id, workspace_id, contact_id, phone, status, skipped_reason, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const at = deps.clock.now().getTime();
  let pending = 0;
  let skipped = 0;
  // a slice of time per transaction: the rows after the one that used it up go to the next batch
  const budget = sliceBudget(deps.db.engine, { atLeast: 50 });
  let cursor = next;
  for (const [i, r] of rows.entries()) {
    if (r.after !== undefined && budget.spent(i)) {
      cursor = rows[i - 1]!.after!;
      break;
    }
    const status = r.optedOut ? "skipped" : "pending";
    const reason = r.optedOut ? "opted_out" : null;
    if ((await insert.run(Bun.randomUUIDv7(), campaignId, workspaceId, r.id, r.phone, status, reason, at)).changes === 0) {
      await insert.run(Bun.randomUUIDv7(), campaignId, workspaceId, r.id, r.phone, "skipped", "duplicate", at);
      skipped++;
    } else if (r.optedOut) skipped++;
    else pending++;
  }
  await updateCampaign(deps.db, workspaceId, campaignId, {
    total: c.total + pending + skipped,
    pending: c.pending + pending,
    skipped: c.skipped + skipped,
    materializeCursor: cursor,
    materializedAt: cursor === null ? at : null,
    updatedAt: at,
  });
  countSkippedAtStart(deps.db, skipped);
  sliceDone("campaigns.materialize", pending + skipped);
  return { done: cursor === null, moved: pending + skipped > 0 || cursor === null };
}

/** Whether the audience is frozen (every recipient row exists). */
export function isMaterialized(c: Pick<CampaignRow, "materializedAt">): boolean {
  return c.materializedAt !== null;
}
