import { countSkippedAtStart } from "./send-metric.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { CampaignAudience } from "./model.ts";
import { countsMoved } from "./progress.ts";
import { findCampaign, updateCampaign, type CampaignRow } from "./repo.ts";
import { bound, compileSegmentFilter, type SegmentFilter } from "../segments/filter.ts";
import { findSegment } from "../segments/repo.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "clock" | "jobs">;

/** Contacts read and recipients written per transaction: large enough to be fast, small enough to keep memory flat. */
export const MATERIALIZE_BATCH = 5_000;

interface AudienceContact {
  id: string;
  phone: string;
  optedOut: number;
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
    for (const id of slice) {
      const r = await byId.get(workspaceId, id);
      if (r) rows.push(r);
    }
    const end = from + slice.length;
    return { rows, next: end < sorted.length ? String(end) : null };
  };
}

/** A frozen segment or filter audience: the first rows left in campaign_audience (each batch deletes what it took). */
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

/** The reader of a campaign's audience: its contact ids, or the rows frozen at start. */
export function audienceReader(deps: Deps, c: CampaignRow): AudienceReader {
  const audience = c.audience as CampaignAudience;
  if (audience.contactIds) return contactIdsReader(deps, c.workspaceId, audience.contactIds);
  return stagedReader(deps, c.id);
}

/**
 * Freezes a segment or filter audience in the start transaction: the opted-in matching
 * contacts (as the segment's count says) copied by one INSERT ... SELECT over the segments
 * module's compiled filter. A segment deleted meanwhile refuses the start (409). Inside `db.tx`.
 */
export async function freezeFilterAudience(deps: Pick<AppDeps, "db">, c: CampaignRow, at: number): Promise<void> {
  const audience = c.audience as CampaignAudience;
  let filter: SegmentFilter | undefined = audience.filter;
  if (audience.segmentId) {
    const segment = await findSegment(deps.db, c.workspaceId, audience.segmentId);
    if (!segment) throw errors.conflict("The campaign's segment no longer exists; choose another audience");
    filter = segment.filter as SegmentFilter;
  }
  if (!filter) return;
  const { where, params } = compileSegmentFilter(c.workspaceId, filter, at);
  // through the store's bounded statement cache, not db.prepare: the SQL varies with the filter's shape
  const insert = `INSERT INTO campaign_audience (campaign_id, contact_id, phone) SELECT CAST(? AS TEXT), c.id, c.phone FROM contacts c WHERE ${where} ON CONFLICT DO NOTHING`;
  await deps.db.run(bound(insert, [c.id, ...params]));
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
    await Bun.sleep(0); // let requests and sends in between batches
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
  for (const r of rows) {
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
    materializeCursor: next,
    materializedAt: next === null ? at : null,
    updatedAt: at,
  });
  countSkippedAtStart(deps.db, skipped);
  return { done: next === null, moved: pending + skipped > 0 || next === null };
}

/** Whether the audience is frozen (every recipient row exists). */
export function isMaterialized(c: Pick<CampaignRow, "materializedAt">): boolean {
  return c.materializedAt !== null;
}
