// Pure pacing rules (docs/contacts-and-campaigns.md): gaps with jitter, warm-up caps, quiet hours in an IANA time zone.

export interface QuietHours {
  start: string;
  end: string;
  timezone: string;
}

export interface Pacing {
  perMinute: number;
  jitterPercent: number;
  dailyCapPerSession: number;
  warmup: boolean;
  quietHours: QuietHours | null;
}

const DAY = 86_400_000;

/** Why a running campaign may send nothing for a while (see waiting.ts). */
export const WAITING_CODES = ["quiet_hours", "warmup", "daily_cap", "reconnecting"] as const;

/** The gap before a session's next campaign message: 60 s / perMinute, varied by up to jitterPercent either way. */
export function nextGapMs(p: Pick<Pacing, "perMinute" | "jitterPercent">, random = Math.random): number {
  const base = 60_000 / p.perMinute;
  const spread = (base * p.jitterPercent) / 100;
  return Math.max(0, Math.round(base + (random() * 2 - 1) * spread));
}

/**
 * Campaign sends a session may make today. Warm-up protects a new number: 50 a day on its first
 * two days since it first connected, 200 on days 3-5, 500 on days 6-10, then the campaign's cap.
 */
export function dailyCap(p: Pick<Pacing, "dailyCapPerSession" | "warmup">, firstConnectedAt: number | null, now: number): number {
  if (!p.warmup || firstConnectedAt === null) return p.dailyCapPerSession;
  const day = Math.floor(Math.max(0, now - firstConnectedAt) / DAY) + 1;
  const warm = day <= 2 ? 50 : day <= 5 ? 200 : day <= 10 ? 500 : Infinity;
  return Math.min(warm, p.dailyCapPerSession);
}

/** `YYYY-MM-DD` (UTC) of a time: the window of the daily caps. */
export function utcDay(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/** The start of the next UTC day. */
export function nextUtcMidnight(t: number): number {
  return Math.floor(t / DAY) * DAY + DAY;
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Minutes since local midnight and seconds into the minute, in a time zone. */
function localClock(t: number, timezone: string): { minute: number; second: number; ms: number } {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: timezone, hourCycle: "h23", hour: "2-digit", minute: "2-digit", second: "2-digit" }).formatToParts(new Date(t));
  const get = (type: string) => Number(parts.find((x) => x.type === type)?.value ?? 0);
  return { minute: get("hour") * 60 + get("minute"), second: get("second"), ms: t % 1000 };
}

/** Whether an IANA time zone name is known to the runtime. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * When quiet hours end, if `t` is inside them (start inclusive, end exclusive, wrapping past
 * midnight when end < start), else null. Computed in the campaign's time zone.
 */
export function quietUntil(q: QuietHours | null, t: number): number | null {
  if (!q) return null;
  const start = minutes(q.start);
  const end = minutes(q.end);
  const insideAt = (m: number) => (start < end ? m >= start && m < end : m >= start || m < end);
  const { minute, second, ms } = localClock(t, q.timezone);
  if (!insideAt(minute)) return null;
  const left = (end - minute + 1440) % 1440 || 1440;
  let at = t + left * 60_000 - second * 1000 - ms;
  // a daylight-saving change inside the wait shifts the wall clock: move to where it reads
  // `end`, unless that lands inside the hours (an `end` in the skipped hour: keep the later time)
  for (let i = 0; i < 2; i++) {
    const diff = ((end - localClock(at, q.timezone).minute + 2160) % 1440) - 720;
    const next = at + diff * 60_000;
    if (diff === 0 || next <= t || insideAt(localClock(next, q.timezone).minute)) break;
    at = next;
  }
  return at;
}
