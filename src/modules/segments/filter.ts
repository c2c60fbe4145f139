// The segment filter (docs/contacts-and-campaigns.md) and its compiler to SQL. The campaigns module materialises
// recipients with `readSegmentBatches`; segments count and preview with the rest.
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { DB, SqlParam } from "../../db/store.ts";
import { attributesField, MAX_TAGS, tagField } from "../contacts/fields.ts";
import { lazySchema } from "../../http/lazy-schema.ts";
import { giveWay } from "../../yield.ts";

const DAY_MS = 86_400_000;

const tagList = lazySchema(() => z.array(tagField).min(1, "must name at least one tag").max(MAX_TAGS, `must have at most ${MAX_TAGS} tags`));
const days = lazySchema(() => z.number().int("must be a whole number of days").min(1).max(36_500));

/**
 * A segment filter (docs/contacts-and-campaigns.md): every given condition must hold. Tags are matched after trimming
 * and lower-casing (as stored); `attributes` is exact, case-sensitive equality per key.
 * Unknown keys are refused (a misspelt condition must not silently widen an audience).
 */
export const segmentFilter = lazySchema(() =>
  z
    .object({
      /** the contact has at least one of these tags */
      tagsAny: tagList.optional(),
      /** the contact has every one of these tags */
      tagsAll: tagList.optional(),
      /** the contact has none of these tags */
      tagsNone: tagList.optional(),
      /** attribute KEY equals the value, for every key given */
      attributes: attributesField.optional(),
      /** the contact wrote within this many days */
      lastInboundWithinDays: days.optional(),
      /** the contact was created within this many days */
      createdWithinDays: days.optional(),
    })
    .strict(),
);

/** A validated filter (tags already trimmed and lower-cased). */
export type SegmentFilter = z.infer<typeof segmentFilter>;

/** A WHERE clause over `contacts c` and its parameters, in order. */
export interface CompiledFilter {
  where: string;
  params: SqlParam[];
}

/** A matching contact as the readers return it (JSON columns parsed). */
export interface SegmentContact {
  id: string;
  phone: string;
  name: string | null;
  pushName: string | null;
  tags: string[];
  attributes: Record<string, string>;
  lastInboundAt: number | null;
  createdAt: number;
}

/**
 * SQL of `?` placeholders with its parameters, for `db.all`/`db.get`/`db.run`: these go through
 * the store's bounded statement cache, not `db.prepare`, whose statements are kept for ever (the
 * SQL text of a filter varies with its shape, which callers choose).
 */
export function bound(text: string, params: SqlParam[]): SQL {
  const parts = text.split("?");
  if (parts.length !== params.length + 1) throw new Error(`segment query: ${parts.length - 1} placeholders, ${params.length} parameters`);
  const chunks: SQL[] = [sql.raw(parts[0]!)];
  for (let i = 1; i < parts.length; i++) chunks.push(sql`${params[i - 1]}`, sql.raw(parts[i]!));
  return sql.join(chunks);
}

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");
const uniq = (xs: string[]) => [...new Set(xs)];

/**
 * Compiles `filter` to a WHERE clause over `contacts c` selecting the workspace's OPTED-IN
 * contacts that match at `now`. Tag and attribute conditions are `c.id IN (subquery)` over
 * the covering primary keys of contact_tags / contact_attributes, so no JSON is scanned;
 * `correlated` makes them `EXISTS (... AND contact_id = c.id)` probes instead (keyset batches).
 * `filter` must have passed `segmentFilter` (tags normalised).
 */
export function compileSegmentFilter(
  workspaceId: string,
  filter: SegmentFilter,
  now: Date | number,
  opts: { correlated?: boolean } = {},
): CompiledFilter {
  const at = typeof now === "number" ? now : now.getTime();
  const parts = ["c.workspace_id = ?", "c.opted_out = 0"];
  const params: SqlParam[] = [workspaceId];
  // whole-set form: the subquery's ids are listed once per execution (best for one count);
  // correlated form: one primary-key probe per contact walked (a keyset batch costs its size)
  const member = (table: string, cond: string) =>
    opts.correlated
      ? `EXISTS (SELECT 1 FROM ${table} WHERE workspace_id = ? AND ${cond} AND contact_id = c.id)`
      : `c.id IN (SELECT contact_id FROM ${table} WHERE workspace_id = ? AND ${cond})`;
  // attribute equalities first: usually the narrowest, and SQLite drives from the first IN list
  for (const [key, value] of Object.entries(filter.attributes ?? {})) {
    parts.push(member("contact_attributes", "key = ? AND value = ?"));
    params.push(workspaceId, key, value);
  }
  if (filter.tagsAny?.length) {
    const tags = uniq(filter.tagsAny);
    parts.push(member("contact_tags", `tag IN (${placeholders(tags.length)})`));
    params.push(workspaceId, ...tags);
  }
  for (const tag of uniq(filter.tagsAll ?? [])) {
    parts.push(member("contact_tags", "tag = ?"));
    params.push(workspaceId, tag);
  }
  if (filter.tagsNone?.length) {
    const tags = uniq(filter.tagsNone);
    parts.push(`NOT ${member("contact_tags", `tag IN (${placeholders(tags.length)})`)}`);
    params.push(workspaceId, ...tags);
  }
  if (filter.lastInboundWithinDays !== undefined) {
    parts.push("c.last_inbound_at >= ?");
    params.push(at - filter.lastInboundWithinDays * DAY_MS);
  }
  if (filter.createdWithinDays !== undefined) {
    parts.push("c.created_at >= ?");
    params.push(at - filter.createdWithinDays * DAY_MS);
  }
  return { where: parts.join(" AND "), params };
}

/**
 * `SELECT c.id FROM contacts c WHERE <filter> ORDER BY c.id`: the ids of the opted-in
 * matching contacts, for use as a subquery or an INSERT ... SELECT (e.g. materialising
 * campaign recipients in one statement).
 */
export function segmentIdsQuery(workspaceId: string, filter: SegmentFilter, now: Date | number): { sql: string; params: SqlParam[] } {
  const { where, params } = compileSegmentFilter(workspaceId, filter, now);
  return { sql: `SELECT c.id FROM contacts c WHERE ${where} ORDER BY c.id`, params };
}

/** Opted-in contacts a window holds: one window's statements take a few ms on a large workspace. */
export const WINDOW = 2_000;

/**
 * The last id of the window of `size` opted-in contacts after `afterId` (id order), read from
 * contacts_ws_optin_idx alone; null when fewer remain (the window runs to the end).
 */
export async function windowEnd(db: DB, workspaceId: string, afterId: string, size = WINDOW): Promise<string | null> {
  const row = await db
    .prepare<{ id: string }>("SELECT id FROM contacts WHERE workspace_id = ? AND opted_out = 0 AND id > ? ORDER BY id LIMIT 1 OFFSET ?")
    .get(workspaceId, afterId, size - 1);
  return row?.id ?? null;
}

/** `c.id > ? [AND c.id <= ?]`: a window of the opted-in index. */
const inWindow = (afterId: string, untilId: string | null) => ({ sql: untilId === null ? "c.id > ?" : "c.id > ? AND c.id <= ?", params: untilId === null ? [afterId] : [afterId, untilId] });

/**
 * How many opted-in contacts of the workspace match `filter` at `now`: a window of contacts at a
 * time (each a range of the opted-in index with per-contact probes), giving the event loop a turn
 * between windows, so a count over any number of contacts never holds it long. One window (a
 * workspace of up to 2,000 opted-in contacts) is one statement.
 */
export async function countSegment(db: DB, workspaceId: string, filter: SegmentFilter, now: Date | number): Promise<number> {
  const { where, params } = compileSegmentFilter(workspaceId, filter, now, { correlated: true });
  let n = 0;
  for (let after = ""; ; ) {
    const until = await windowEnd(db, workspaceId, after);
    const w = inWindow(after, until);
    const row = await db.get<{ n: number }>(bound(`SELECT count(*) AS n FROM contacts c WHERE ${where} AND ${w.sql}`, [...params, ...w.params]));
    n += Number(row?.n ?? 0);
    if (until === null) return n;
    after = until;
    await giveWay();
  }
}

/**
 * The opted-in contacts matching `filter` at `now` in one window (after `afterId`, up to and
 * including `untilId`; null: to the end), in id order, created at or before `createdBy`.
 */
export async function segmentWindow(
  db: DB,
  workspaceId: string,
  filter: SegmentFilter,
  now: number,
  w: { afterId: string; untilId: string | null; createdBy: number },
): Promise<{ id: string; phone: string }[]> {
  const { where, params } = compileSegmentFilter(workspaceId, filter, now, { correlated: true });
  const win = inWindow(w.afterId, w.untilId);
  return db.all<{ id: string; phone: string }>(bound(`SELECT c.id, c.phone FROM contacts c WHERE ${where} AND ${win.sql} AND c.created_at <= ? ORDER BY c.id`, [...params, ...win.params, w.createdBy]));
}

const COLUMNS = 'c.id, c.phone, c.name, c.push_name AS "pushName", c.tags, c.attributes, c.last_inbound_at AS "lastInboundAt", c.created_at AS "createdAt"';
type RawRow = Omit<SegmentContact, "tags" | "attributes"> & { tags: string; attributes: string };
const parse = (r: RawRow): SegmentContact => ({ ...r, tags: JSON.parse(r.tags), attributes: JSON.parse(r.attributes) });

/**
 * One keyset batch: `SELECT ... WHERE <filter> AND c.id > ? ORDER BY c.id LIMIT ?` (bind the
 * cursor and the size after `params`). The filter is in its correlated form, so SQLite walks
 * contacts_ws_optin_idx from the cursor and probes the tag and attribute keys per contact:
 * a batch costs the contacts it walks, never the whole tag set again (that was quadratic).
 */
export function segmentBatchQuery(workspaceId: string, filter: SegmentFilter, now: Date | number): { sql: string; params: SqlParam[] } {
  const { where, params } = compileSegmentFilter(workspaceId, filter, now, { correlated: true });
  return { sql: `SELECT ${COLUMNS} FROM contacts c WHERE ${where} AND c.id > ? ORDER BY c.id LIMIT ?`, params };
}

/**
 * The matching opted-in contacts in id order, `batchSize` at a time (keyset on id, so each
 * batch is one indexed range read and memory stays flat for any audience size). Each batch
 * is read when the consumer asks for it: write it (e.g. recipients) before pulling the next.
 * `afterId` resumes after a contact id (exclusive), e.g. the last one a crashed run stored.
 */
export async function* readSegmentBatches(
  db: DB,
  workspaceId: string,
  filter: SegmentFilter,
  now: Date | number,
  opts: { batchSize?: number; afterId?: string } = {},
): AsyncGenerator<SegmentContact[], void, undefined> {
  const size = opts.batchSize ?? 1000;
  const { sql: text, params } = segmentBatchQuery(workspaceId, filter, now);
  let after = opts.afterId ?? "";
  for (;;) {
    const rows = (await db.all<RawRow>(bound(text, [...params, after, size]))).map(parse);
    if (!rows.length) return;
    yield rows;
    if (rows.length < size) return;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * Up to `n` matching opted-in contacts, newest first (a segment preview): windows of the opted-in
 * index from the newest back, until `n` are found, giving the event loop a turn between windows
 * (a filter that matches few contacts walks the workspace, a window at a time).
 */
export async function sampleSegment(db: DB, workspaceId: string, filter: SegmentFilter, now: Date | number, n = 10): Promise<SegmentContact[]> {
  const { where, params } = compileSegmentFilter(workspaceId, filter, now, { correlated: true });
  const start = db.prepare<{ id: string }>("SELECT id FROM contacts WHERE workspace_id = ? AND opted_out = 0 AND id < ? ORDER BY id DESC LIMIT 1 OFFSET ?");
  const out: SegmentContact[] = [];
  // ids are UUIDs: "~" sorts after every one of them
  for (let before = "~"; out.length < n; ) {
    const from = (await start.get(workspaceId, before, WINDOW - 1))?.id ?? null;
    const range = from === null ? "c.id < ?" : "c.id >= ? AND c.id < ?";
    const rangeParams = from === null ? [before] : [from, before];
    const rows = await db.all<RawRow>(bound(`SELECT ${COLUMNS} FROM contacts c WHERE ${where} AND ${range} ORDER BY c.id DESC LIMIT ?`, [...params, ...rangeParams, n - out.length]));
    out.push(...rows.map(parse));
    if (from === null) break;
    before = from;
    await giveWay();
  }
  return out;
}
