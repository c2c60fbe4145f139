import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { countSegment, sampleSegment, segmentFilter, type SegmentFilter } from "./filter.ts";
import type { CreateSegmentInput, SegmentView, UpdateSegmentInput } from "./model.ts";
import { deleteSegmentRow, findSegment, findSegmentByName, insertSegment, listSegments, updateSegmentRow, type SegmentRow } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "sqlite" | "clock">;

/** API shape of a segment; `count` is computed now (opted-in contacts matching). */
function view(deps: Deps, workspaceId: string, s: SegmentRow): SegmentView {
  return {
    id: s.id,
    name: s.name,
    filter: s.filter,
    count: countSegment(deps.sqlite, workspaceId, s.filter, deps.clock.now()),
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
  };
}

/** One segment with its live count (404 for another workspace's). */
export function getSegment(deps: Deps, workspaceId: string, id: string): SegmentView {
  const s = findSegment(deps.db, workspaceId, id);
  if (!s) throw errors.notFound("Segment");
  return view(deps, workspaceId, s);
}

/** The stored filter of a segment (404 otherwise): campaigns resolve `{segmentId}` audiences with it. */
export function segmentFilterOf(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): SegmentFilter {
  const s = findSegment(deps.db, workspaceId, id);
  if (!s) throw errors.notFound("Segment");
  return segmentFilter.parse(s.filter);
}

/** A page of segments, each with its live count. */
export function pageSegments(deps: Deps, workspaceId: string, q: { page: number; limit: number }) {
  const { rows, total } = listSegments(deps.db, workspaceId, q.limit, (q.page - 1) * q.limit);
  return { data: rows.map((s) => view(deps, workspaceId, s)), total };
}

/** Saves a filter under a name (unique in the workspace: 409). */
export function createSegment(deps: Deps, workspaceId: string, input: CreateSegmentInput): SegmentView {
  const id = Bun.randomUUIDv7();
  deps.sqlite.transaction(() => {
    if (findSegmentByName(deps.db, workspaceId, input.name)) throw errors.conflict("A segment with this name exists");
    insertSegment(deps.db, workspaceId, { id, name: input.name, filter: input.filter, at: deps.clock.now().getTime() });
  })();
  return getSegment(deps, workspaceId, id);
}

/** Renames a segment or replaces its filter. */
export function updateSegment(deps: Deps, workspaceId: string, id: string, input: UpdateSegmentInput): SegmentView {
  deps.sqlite.transaction(() => {
    if (!findSegment(deps.db, workspaceId, id)) throw errors.notFound("Segment");
    const clash = input.name === undefined ? undefined : findSegmentByName(deps.db, workspaceId, input.name);
    if (clash && clash.id !== id) throw errors.conflict("A segment with this name exists");
    updateSegmentRow(deps.db, workspaceId, id, { name: input.name, filter: input.filter }, deps.clock.now().getTime());
  })();
  return getSegment(deps, workspaceId, id);
}

export function deleteSegment(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): void {
  if (!deleteSegmentRow(deps.db, workspaceId, id)) throw errors.notFound("Segment");
}

/** What a filter selects now: the count and up to 10 contacts (newest first). */
export function previewSegment(deps: Deps, workspaceId: string, filter: SegmentFilter) {
  const now = deps.clock.now();
  return {
    count: countSegment(deps.sqlite, workspaceId, filter, now),
    sample: sampleSegment(deps.sqlite, workspaceId, filter, now, 10).map((c) => ({ id: c.id, phone: c.phone, name: c.name, pushName: c.pushName, tags: c.tags, attributes: c.attributes })),
  };
}
