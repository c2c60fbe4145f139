import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { CampaignAudience } from "./model.ts";
import { countsMoved } from "./progress.ts";
import { findCampaign, updateCampaign, type CampaignRow } from "./repo.ts";
import { readSegmentBatches, type SegmentFilter } from "../segments/filter.ts";
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

/**
 * A segment or filter audience: the opted-in matching contacts (as the segment's count says), in
 * id order, through the segments module's keyset reader. `at` is the start time, so "within N
 * days" means the same on a resumed run.
 */
function filterReader(deps: Deps, workspaceId: string, filter: SegmentFilter, at: number): AudienceReader {
  return (cursor, limit) => {
    const batch = readSegmentBatches(deps.sqlite, workspaceId, filter, at, { batchSize: limit, afterId: cursor ?? undefined }).next();
    const rows = batch.done ? [] : batch.value.map((c) => ({ id: c.id, phone: c.phone, optedOut: 0 }));
    return { rows, next: rows.length === limit ? rows[rows.length - 1]!.id : null };
  };
}

/** The reader of a campaign's audience: its contact ids, or its filter frozen at start. */
export function audienceReader(deps: Deps, c: CampaignRow): AudienceReader {
  const audience = c.audience as CampaignAudience;
  if (audience.contactIds) return contactIdsReader(deps, c.workspaceId, audience.contactIds);
  if (!c.frozenFilter) throw errors.conflict("The campaign's audience filter was not frozen at start");
  return filterReader(deps, c.workspaceId, c.frozenFilter as SegmentFilter, c.startedAt ?? c.createdAt);
}

/** The filter to freeze at start: the audience's own, or its segment's as it is now (409 when the segment is gone). */
export function filterToFreeze(deps: Pick<AppDeps, "db">, c: CampaignRow): SegmentFilter | null {
  const audience = c.audience as CampaignAudience;
  if (audience.filter) return audience.filter;
  if (!audience.segmentId) return null;
  const segment = findSegment(deps.db, c.workspaceId, audience.segmentId);
  if (!segment) throw errors.conflict("The campaign's segment no longer exists; choose another audience");
  return segment.filter as SegmentFilter;
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
  const first = findCampaign(deps.db, workspaceId, campaignId);
  if (!first || first.materializedAt !== null) return;
  const read = audienceReader(deps, first);
  const insert = deps.sqlite.prepare(
    `INSERT OR IGNORE INTO campaign_recipients (id, campaign_id, workspace_id, contact_id, phone, status, skipped_reason, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (;;) {
    const done = deps.bus.transaction(() => {
      const c = findCampaign(deps.db, workspaceId, campaignId);
      // cancelled (or deleted) meanwhile: the audience stays as far as it got
      if (!c || c.materializedAt !== null || c.status === "cancelled" || c.status === "draft") return true;
      const { rows, next } = read(c.materializeCursor, MATERIALIZE_BATCH);
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
      if (pending + skipped > 0 || next === null) countsMoved(deps, workspaceId, campaignId);
      return next === null;
    });
    if (done) return;
    await Bun.sleep(0); // let requests and sends in between batches
  }
}

/** Whether the audience is frozen (every recipient row exists). */
export function isMaterialized(c: CampaignRow): boolean {
  return c.materializedAt !== null;
}
