import { countSkippedAtStart } from "./send-metric.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { CampaignAudience } from "./model.ts";
import { countsMoved } from "./progress.ts";
import { findCampaign, updateCampaign, type CampaignRow } from "./repo.ts";
import { compileSegmentFilter, type SegmentFilter } from "../segments/filter.ts";
import { findSegment } from "../segments/repo.ts";

type Deps = Pick<AppDeps, "db" | "sqlite" | "bus" | "clock" | "jobs">;

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
type AudienceReader = (cursor: string | null, limit: number) => { rows: AudienceContact[]; next: string | null };

function contactIdsReader(deps: Deps, workspaceId: string, ids: string[]): AudienceReader {
  // the list is at most 10,000 ids: sorted once, walked by position; repeats stay (they become `duplicate` skips)
  const sorted = [...ids].sort();
  const byId = deps.sqlite.query("SELECT id, phone, opted_out AS optedOut FROM contacts WHERE workspace_id = ? AND id = ?");
  return (cursor, limit) => {
    const from = cursor === null ? 0 : Number(cursor);
    const slice = sorted.slice(from, from + limit);
    const rows = slice.map((id) => byId.get(workspaceId, id) as AudienceContact | null).filter((r): r is AudienceContact => r !== null);
    const end = from + slice.length;
    return { rows, next: end < sorted.length ? String(end) : null };
  };
}

/** A frozen segment or filter audience: the first rows left in campaign_audience (each batch deletes what it took). */
function stagedReader(deps: Deps, campaignId: string): AudienceReader {
  const q = deps.sqlite.query("SELECT contact_id AS id, phone, 0 AS optedOut FROM campaign_audience WHERE campaign_id = ? ORDER BY contact_id LIMIT ?");
  const consume = deps.sqlite.query("DELETE FROM campaign_audience WHERE campaign_id = ? AND contact_id <= ?");
  return (_cursor, limit) => {
    const rows = q.all(campaignId, limit) as AudienceContact[];
    if (rows.length) consume.run(campaignId, rows[rows.length - 1]!.id);
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
 * module's compiled filter. A segment deleted meanwhile refuses the start (409).
 */
export function freezeFilterAudience(deps: Pick<AppDeps, "db" | "sqlite">, c: CampaignRow, at: number): void {
  const audience = c.audience as CampaignAudience;
  let filter: SegmentFilter | undefined = audience.filter;
  if (audience.segmentId) {
    const segment = findSegment(deps.db, c.workspaceId, audience.segmentId);
    if (!segment) throw errors.conflict("The campaign's segment no longer exists; choose another audience");
    filter = segment.filter as SegmentFilter;
  }
  if (!filter) return;
  const { where, params } = compileSegmentFilter(c.workspaceId, filter, at);
  // prepared and finalized here: the SQL varies with the filter's shape (sqlite.query would cache each for ever)
  const stmt = deps.sqlite.prepare(`INSERT OR IGNORE INTO campaign_audience (campaign_id, contact_id, phone) SELECT ?, c.id, c.phone FROM contacts c WHERE ${where}`);
  try {
    stmt.run(c.id, ...params);
  } finally {
    stmt.finalize();
  }
}

const running = new Map<string, Promise<void>>();

/**
 * Freezes a campaign's audience into recipient rows, batch by batch, each batch one transaction
 * with the cursor that says where the next begins: safe to stop at any point and to run again.
 * Opted-out contacts become `skipped` (`opted_out`); a phone already in the campaign becomes a
 * `skipped` (`duplicate`) row. One run per campaign at a time in this process.
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
    const done = deps.bus.transaction(() => {
      const batch = materializeBatch(deps, workspaceId, campaignId);
      if (batch.moved) countsMoved(deps, workspaceId, campaignId);
      return batch.done;
    });
    if (done) return;
    await Bun.sleep(0); // let requests and sends in between batches
  }
}

/**
 * One batch of recipients with the counters and the cursor, in the caller's transaction.
 * `moved` says whether the counters changed (the caller announces it); `done` whether
 * nothing is left (or there is nothing to do: cancelled, deleted, already done).
 */
export function materializeBatch(deps: Deps, workspaceId: string, campaignId: string): { done: boolean; moved: boolean } {
  const c = findCampaign(deps.db, workspaceId, campaignId);
  // cancelled (or deleted) meanwhile: the audience stays as far as it got
  if (!c || c.materializedAt !== null || c.status === "cancelled" || c.status === "draft") return { done: true, moved: false };
  const { rows, next } = audienceReader(deps, c)(c.materializeCursor, MATERIALIZE_BATCH);
  const insert = deps.sqlite.query(
    `INSERT OR IGNORE INTO campaign_recipients (id, campaign_id, workspace_id, contact_id, phone, status, skipped_reason, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const at = deps.clock.now().getTime();
  let pending = 0;
  let skipped = 0;
  for (const r of rows) {
    const status = r.optedOut ? "skipped" : "pending";
    const reason = r.optedOut ? "opted_out" : null;
    if (insert.run(Bun.randomUUIDv7(), campaignId, workspaceId, r.id, r.phone, status, reason, at).changes === 0) {
      insert.run(Bun.randomUUIDv7(), campaignId, workspaceId, r.id, r.phone, "skipped", "duplicate", at);
      skipped++;
    } else if (r.optedOut) skipped++;
    else pending++;
  }
  updateCampaign(deps.db, workspaceId, campaignId, {
    total: c.total + pending + skipped,
    pending: c.pending + pending,
    skipped: c.skipped + skipped,
    materializeCursor: next,
    materializedAt: next === null ? at : null,
    updatedAt: at,
  });
  countSkippedAtStart(deps.sqlite, campaignId, c.skipped + skipped, skipped);
  return { done: next === null, moved: pending + skipped > 0 || next === null };
}

/** Whether the audience is frozen (every recipient row exists). */
export function isMaterialized(c: Pick<CampaignRow, "materializedAt">): boolean {
  return c.materializedAt !== null;
}
