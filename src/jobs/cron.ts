// The few cron patterns Parley's housekeeping uses, read in UTC: `[second] minute hour * * *`
// where each of second, minute and hour is `*`, `*/n` or one number. The next run is computed
// with a few steps of arithmetic: a general cron library (croner) walked the calendar in loops
// hot enough to wake the optimizing JIT, and in local time loaded ICU's time-zone data,
// together ~5 MB resident at idle for a few runs an hour (issue 13). No per-value loops or
// callbacks here either, for the same reason.

const DAY_S = 86_400;

/** One field: every `step`-th value from 0 (`*` is step 1), or only `value`. */
type Field = { step: number; value?: undefined } | { value: number; step?: undefined };

/** A parsed pattern. */
export interface CronTimes {
  second: Field;
  minute: Field;
  hour: Field;
}

function field(text: string, size: number, pattern: string): Field {
  if (text === "*") return { step: 1 };
  const step = /^\*\/(\d+)$/.exec(text);
  if (step && Number(step[1]) > 0 && Number(step[1]) < size) return { step: Number(step[1]) };
  if (/^\d+$/.test(text) && Number(text) < size) return { value: Number(text) };
  throw new Error(`unsupported cron field "${text}" in "${pattern}" (use *, */n or a number)`);
}

/** Parses `[second] minute hour * * *`; throws on anything else. */
export function parseCron(pattern: string): CronTimes {
  const parts = pattern.trim().split(/\s+/);
  if (parts.length === 5) parts.unshift("0");
  if (parts.length !== 6 || parts.slice(3).some((p) => p !== "*")) throw new Error(`unsupported cron pattern "${pattern}" (use [second] minute hour * * *)`);
  return { second: field(parts[0]!, 60, pattern), minute: field(parts[1]!, 60, pattern), hour: field(parts[2]!, 24, pattern) };
}

/** The smallest allowed value >= x of a field of `size` values, or null. */
function atOrAfter(f: Field, x: number, size: number): number | null {
  const v = f.step === undefined ? (f.value >= x ? f.value : null) : Math.ceil(x / f.step) * f.step;
  return v !== null && v < size ? v : null;
}

/** The first time (epoch ms, UTC) strictly after `afterMs` that matches. */
export function nextRun(t: CronTimes, afterMs: number): number {
  const dayStart = Math.floor(afterMs / (DAY_S * 1000)) * DAY_S;
  // whole seconds into the UTC day; a match must be a later second than the one `afterMs` is in
  let x = Math.floor(afterMs / 1000) - dayStart + 1;
  // each step moves x to the start of the next hour or minute that can match; at most a few
  for (;;) {
    const h = atOrAfter(t.hour, Math.floor(x / 3600), 24);
    if (h === null) break;
    if (h * 3600 > x) {
      x = h * 3600;
      continue;
    }
    const m = atOrAfter(t.minute, Math.floor(x / 60) % 60, 60);
    if (m === null) {
      x = (h + 1) * 3600;
      continue;
    }
    if (h * 3600 + m * 60 > x) {
      x = h * 3600 + m * 60;
      continue;
    }
    const s = atOrAfter(t.second, x % 60, 60);
    if (s === null) {
      x = h * 3600 + (m + 1) * 60;
      continue;
    }
    return (dayStart + h * 3600 + m * 60 + s) * 1000;
  }
  // nothing left today: the first match of the next day
  const first = (f: Field) => f.value ?? 0;
  return (dayStart + DAY_S + first(t.hour) * 3600 + first(t.minute) * 60 + first(t.second)) * 1000;
}
