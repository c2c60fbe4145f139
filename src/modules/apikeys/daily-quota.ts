import type { Database, Statement } from "bun:sqlite";
import { usagePeriod } from "../billing/usage.ts";

/** Pending counts are written once this many are waiting, or after FLUSH_MS, whichever comes first. */
const FLUSH_AT = 1000;
const FLUSH_MS = 1000;

interface Window {
  workspaceId: string;
  period: string;
  /** the row's value when last read or written */
  stored: number;
  /** requests admitted and not yet written */
  pending: number;
}

/**
 * The daily API-request quota (docs/team-and-billing.md), counted in memory and written in batches: one UPSERT per
 * workspace a second (or per 1,000 requests) instead of one SQLite write per API-key request.
 * Exact within the server (one server per data dir; nothing else counts API requests): the
 * check is `stored + pending + 1 <= limit`, synchronous, so parallel requests cannot both
 * take the last unit; at the limit the row is read again first, in case the limit or the
 * row changed. Counts are written at shutdown; a crash loses at most a second of counts
 * (the quota is then slightly generous, never stricter).
 */
export class DailyApiQuota {
  /** by workspace id (the guard's row hands the same string every request): the current day's window */
  private windows = new Map<string, Window>();
  private pendingTotal = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private read: Statement<{ used: number }, [string, string, string]>;
  private add: Statement<{ used: number }, [string, string, string, number]>;

  constructor(private sqlite: Database) {
    this.read = sqlite.prepare("SELECT used FROM usage_counters WHERE workspace_id = ? AND metric = ? AND period = ?");
    this.add = sqlite.prepare(
      `INSERT INTO usage_counters (workspace_id, metric, period, used) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (workspace_id, metric, period) DO UPDATE SET used = used + ?4 RETURNING used`,
    );
  }

  private day = { from: 0, to: 0, period: "" };

  /** The day's period of `at` (usagePeriod), remembered for the day: every API-key request asks. */
  private periodOf(at: Date): string {
    const t = at.getTime();
    if (t < this.day.from || t >= this.day.to) {
      const from = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
      this.day = { from, to: from + 86_400_000, period: usagePeriod("apiRequestsPerDay", at) };
    }
    return this.day.period;
  }

  /** Takes one request of the day's quota; the day's count after it, or null when over `limit`. */
  take(workspaceId: string, at: Date, limit: number): number | null {
    const period = this.periodOf(at);
    let w = this.windows.get(workspaceId);
    if (w && w.period !== period) {
      this.flush(); // a new day: the last day's counts are written before its window goes
      w = undefined;
    }
    if (!w) {
      w = { workspaceId, period, stored: this.stored(workspaceId, period), pending: 0 };
      this.windows.set(workspaceId, w);
    }
    if (w.stored + w.pending + 1 > limit) {
      this.refresh(w); // the row may have changed under us: decide on its current value
      if (w.stored + 1 > limit) return null;
    }
    w.pending++;
    this.pendingTotal++;
    const used = w.stored + w.pending;
    if (this.pendingTotal >= FLUSH_AT) {
      try {
        this.flush();
      } catch {
        this.flushSoon();
      }
    } else this.flushSoon();
    return used;
  }

  /** Admitted requests not yet written, for a workspace's current day (usage views add them). */
  pendingOf(workspaceId: string, at: Date): number {
    const w = this.windows.get(workspaceId);
    return w && w.period === usagePeriod("apiRequestsPerDay", at) ? w.pending : 0;
  }

  /** Writes every pending count in one transaction; on failure the counts stay pending for the next flush. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.windows.values()].filter((w) => w.pending > 0);
    if (batch.length) {
      this.sqlite.transaction(() => {
        for (const w of batch) this.add.get(w.workspaceId, "apiRequestsPerDay", w.period, w.pending);
      })();
      for (const w of batch) this.pendingTotal -= w.pending;
    }
    // every count is in the rows now: the next request of a workspace reads its row again
    this.windows.clear();
  }

  private flushSoon(): void {
    this.timer ??= unref(
      setTimeout(() => {
        this.timer = null;
        try {
          this.flush();
        } catch {
          this.flushSoon(); // the database is busy or failing: the counts wait in memory
        }
      }, FLUSH_MS),
    );
  }

  /** At the limit: writes this window's pending count and reads the row's current value. */
  private refresh(w: Window): void {
    if (w.pending > 0) {
      const row = this.add.get(w.workspaceId, "apiRequestsPerDay", w.period, w.pending);
      this.pendingTotal -= w.pending;
      w.pending = 0;
      w.stored = row?.used ?? w.stored;
    } else {
      w.stored = this.stored(w.workspaceId, w.period);
    }
  }

  private stored(workspaceId: string, period: string): number {
    return this.read.get(workspaceId, "apiRequestsPerDay", period)?.used ?? 0;
  }
}

function unref<T>(t: T): T {
  (t as { unref?: () => void }).unref?.();
  return t;
}

const quotas = new WeakMap<Database, DailyApiQuota>();

/** The counter of a runtime (one per database). */
export function dailyApiQuota(sqlite: Database): DailyApiQuota {
  let q = quotas.get(sqlite);
  if (!q) quotas.set(sqlite, (q = new DailyApiQuota(sqlite)));
  return q;
}
