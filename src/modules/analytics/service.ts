import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { getSession } from "../sessions/repo.ts";
import { findWorkspace } from "../workspaces/repo.ts";
import { dayOf, daysBetween, nextDay, startOfDay } from "./days.ts";
import { MAX_RANGE_DAYS, type DayStats, type MessageAnalyticsQuery } from "./model.ts";
import { countMessages, firstResponses, pageCampaignStats } from "./repo.ts";

const DAY_MS = 86_400_000;
// every time zone in use today is a whole number of quarter hours off UTC
const QUARTER_HOUR_MS = 900_000;

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const v = values.sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** The day range asked for, checked: `to` defaults to today, `from` to 29 days before `to`. */
function range(deps: AppDeps, q: MessageAnalyticsQuery, tz: string): { from: string; to: string } {
  const to = q.to ?? dayOf(deps.clock.nowMs(), tz);
  const from = q.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
  const span = daysBetween(from, to);
  if (span < 0) throw errors.validation({ to: "must not be before from" });
  if (span + 1 > MAX_RANGE_DAYS) throw errors.validation({ to: `must be at most ${MAX_RANGE_DAYS} days from from (both included)` });
  return { from, to };
}

/**
 * Messages per calendar day of the time zone (the request's, else the workspace's), every day of the range listed:
 * outbound messages counted on the day they were made by how far they got, inbound on the day
 * they came, and the median first response to the inbound messages of that day.
 */
export async function messageAnalytics(deps: AppDeps, workspaceId: string, q: MessageAnalyticsQuery): Promise<DayStats[]> {
  const tz = q.timezone ?? (await findWorkspace(deps.db, workspaceId))?.timezone ?? "UTC";
  const { from, to } = range(deps, q, tz);
  if (q.sessionId && !(await getSession(deps.db, workspaceId, q.sessionId))) throw errors.notFound("Session");
  const start = startOfDay(from, tz);
  const end = startOfDay(nextDay(to), tz);

  const days = new Map<string, DayStats>();
  for (let d = from; daysBetween(d, to) >= 0; d = nextDay(d)) {
    days.set(d, { date: d, sent: 0, delivered: 0, read: 0, failed: 0, received: 0, firstResponseSecondsMedian: null });
  }
  // the day of an instant, worked out once per quarter hour (every zone's days start on one)
  const quarterDays = new Map<number, string>();
  const dayAt = (t: number) => {
    const q = Math.floor(t / QUARTER_HOUR_MS);
    let d = quarterDays.get(q);
    if (d === undefined) quarterDays.set(q, (d = dayOf(q * QUARTER_HOUR_MS, tz)));
    return d;
  };
  const utc = tz === "UTC";
  const bucketMs = utc ? DAY_MS : QUARTER_HOUR_MS;
  for (const b of await countMessages(deps.db, workspaceId, start, end, bucketMs, q.sessionId)) {
    const day = days.get(dayAt(b.bucket * bucketMs));
    if (!day) continue;
    day.sent += b.sent;
    day.delivered += b.delivered;
    day.read += b.read;
    day.failed += b.failed;
    day.received += b.received;
  }
  const waits = new Map<string, number[]>();
  for (const r of await firstResponses(deps.db, workspaceId, start, end, q.sessionId)) {
    const d = dayAt(r.askedAt);
    const list = waits.get(d) ?? [];
    list.push((r.answeredAt - r.askedAt) / 1000);
    waits.set(d, list);
  }
  for (const [d, list] of waits) {
    const day = days.get(d);
    const m = median(list);
    if (day && m !== null) day.firstResponseSecondsMedian = Math.round(m);
  }
  return [...days.values()];
}

const rate = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/**
 * The workspace's campaigns, newest first, with delivered and read rates. `sent` counts the
 * recipients whose message reached the network (whatever happened after), `delivered` those
 * delivered or read; both rates are shares of `sent` (0..1, null before anything was sent).
 */
export async function campaignAnalytics(deps: AppDeps, workspaceId: string, page: number, limit: number) {
  const { rows, total } = await pageCampaignStats(deps.db, workspaceId, page, limit);
  const data = rows.map((c) => {
    const sent = c.sent + c.delivered + c.read;
    const delivered = c.delivered + c.read;
    return {
      id: c.id,
      name: c.name,
      status: c.status,
      total: c.total,
      pending: c.pending,
      sent,
      delivered,
      read: c.read,
      failed: c.failed,
      skipped: c.skipped,
      deliveredRate: rate(delivered, sent),
      readRate: rate(c.read, sent),
      createdAt: iso(c.createdAt),
      startedAt: iso(c.startedAt),
      completedAt: iso(c.completedAt),
    };
  });
  return { data, total };
}
