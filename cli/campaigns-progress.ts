// The figures of `parley campaigns watch`: the send rate over a sliding window and the time left.

export interface Stats {
  total: number;
  pending: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  skipped: number;
}

/** Recipients that are done (a message sent, failed or skipped). */
export function processed(s: Stats): number {
  return s.total - s.pending;
}

/** Sends a minute, measured over the last `windowMs` of samples. */
export class RateMeter {
  private samples: { at: number; done: number }[] = [];
  constructor(private windowMs = 60_000) {}

  add(at: number, done: number): void {
    this.samples.push({ at, done });
    while (this.samples.length > 2 && at - this.samples[0]!.at > this.windowMs) this.samples.shift();
  }

  /** Per minute; null until two samples a moment apart exist. */
  perMinute(): number | null {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.at - first.at < 500) return null;
    return ((last.done - first.done) * 60_000) / (last.at - first.at);
  }
}

/** "1h 02m", "3m 05s", "12s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}

/** Time left at the current rate, or null when it cannot be told (no rate yet, or nothing moving). */
export function timeLeft(s: Stats, perMinute: number | null): string | null {
  if (s.pending === 0) return formatDuration(0);
  if (!perMinute || perMinute <= 0) return null;
  return formatDuration((s.pending / perMinute) * 60_000);
}

/** A text bar of `width` cells: done (sent, delivered, read), failed and skipped filled. */
export function bar(s: Stats, width = 30): string {
  if (s.total === 0) return "░".repeat(width);
  const full = Math.round((processed(s) / s.total) * width);
  return "█".repeat(full) + "░".repeat(width - full);
}
