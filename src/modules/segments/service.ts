import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { countSegment, sampleSegment, segmentFilter, type SegmentFilter } from "./filter.ts";
import type { CreateSegmentInput, SegmentView, UpdateSegmentInput } from "./model.ts";
import { deleteSegmentRow, findSegment, findSegmentByName, insertSegment, listSegments, updateSegmentRow, type SegmentRow } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock">;

/** API shape of a segment; `count` is computed now (opted-in contacts matching). */
async function view(deps: Deps, workspaceId: string, s: SegmentRow): Promise<SegmentView> {
  return {
    id: s.id,
    name: s.name,
    filter: s.filter,
    count: await countSegment(deps.db, workspaceId, s.filter, deps.clock.now()),
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
  };
}

/** One segment with its live count (404 for another workspace's). */
export async function getSegment(deps: Deps, workspaceId: string, id: string): Promise<SegmentView> {
  const s = await findSegment(deps.db, workspaceId, id);
  if (!s) throw errors.notFound("Segment");
  return view(deps, workspaceId, s);
}

/** The stored filter of a segment (404 otherwise): campaigns resolve `{segmentId}` audiences with it. */
export async function segmentFilterOf(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): Promise<SegmentFilter> {
  const s = await findSegment(deps.db, workspaceId, id);
  if (!s) throw errors.notFound("Segment");
  return segmentFilter.parse(s.filter);
}

/** A page of segments, each with its live count. */
export async function pageSegments(deps: Deps, workspaceId: string, q: { page: number; limit: number }) {
  const { rows, total } = await listSegments(deps.db, workspaceId, q.limit, (q.page - 1) * q.limit);
  const data: SegmentView[] = [];
  for (const s of rows) data.push(await view(deps, workspaceId, s));
  return { data, total };
}

/** Saves a filter under a name (unique in the workspace: 409). */
export async function createSegment(deps: Deps, workspaceId: string, input: CreateSegmentInput): Promise<SegmentView> {
  const id = Bun.randomUUIDv7();
  await deps.db.tx(async () => {
    if (await findSegmentByName(deps.db, workspaceId, input.name)) throw errors.conflict("A segment with this name exists");
    await insertSegment(deps.db, workspaceId, { id, name: input.name, filter: input.filter, at: deps.clock.now().getTime() });
  });
  return getSegment(deps, workspaceId, id);
}

/** Renames a segment or replaces its filter. */
export async function updateSegment(deps: Deps, workspaceId: string, id: string, input: UpdateSegmentInput): Promise<SegmentView> {
  await deps.db.tx(async () => {
    if (!(await findSegment(deps.db, workspaceId, id))) throw errors.notFound("Segment");
    const clash = input.name === undefined ? undefined : await findSegmentByName(deps.db, workspaceId, input.name);
    if (clash && clash.id !== id) throw errors.conflict("A segment with this name exists");
    await updateSegmentRow(deps.db, workspaceId, id, { name: input.name, filter: input.filter }, deps.clock.now().getTime());
  });
  return getSegment(deps, workspaceId, id);
}

export async function deleteSegment(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): Promise<void> {
  if (!(await deleteSegmentRow(deps.db, workspaceId, id))) throw errors.notFound("Segment");
}

/** What a filter selects now: the count and up to 10 contacts (newest first). */
export async function previewSegment(deps: Deps, workspaceId: string, filter: SegmentFilter) {
  const now = deps.clock.now();
  return {
    count: await countSegment(deps.db, workspaceId, filter, now),
    sample: (await sampleSegment(deps.db, workspaceId, filter, now, 10)).map((c) => ({ id: c.id, phone: c.phone, name: c.name, pushName: c.pushName, tags: c.tags, attributes: c.attributes })),
  };
}
