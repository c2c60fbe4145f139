import type { DB, Statement } from "../../db/store.ts";
import { usagePeriod } from "../billing/usage.ts";

/** Pending counts are written once this many are waiting, or after FLUSH_MS, whichever comes first. */
const FLUSH_AT = 1000;
const FLUSH_MS = 1000;

interface Window {
  workspaceId: string;
  period: string;
  /** the row's value when last read or written */
  stored: number;
  /** requests taken from `pending` by a write under way (in the row once it commits) */
  writing: number;
  /** requests admitted and not yet written */
  pending: number;
}

/** The daily API-request quota as the guard and the usage views use it (in memory or shared by the nodes). */
export interface ApiQuota {
  /** Takes one request of the day's quota; the day's count after it, or null when over `limit`. */
  take(workspaceId: string, at: Date, limit: number): number | null | Promise<number | null>;
  /** Admitted requests not yet written, for a workspace's current day. */
  pendingOf(workspaceId: string, at: Date): number;
  /** Writes what waits in memory; `final` when the node stops (units held in blocks go back). */
  flush(final?: boolean): Promise<void>;
}

/**
 * The daily API-request quota (docs/team-and-billing.md) of a single process (SQLite), counted in memory and written in batches: one UPSERT per
 * workspace a second (or per 1,000 requests) instead of one write per API-key request.
 * Exact within the server (one server per data dir; nothing else counts API requests): the
 * check is `stored + writing + pending + 1 <= limit`, made synchronously when the workspace's
 * window is in memory and below the limit (`take` answers at once then), so parallel requests
 * cannot both take the last unit. Everything that reads or writes the row (a window's first
 * read, the re-read at the limit, a flush) runs one at a time, and a request that needs one
 * waits its turn: at the limit the row is read again first, in case the limit or the row
 * changed. Counts are written at shutdown; a crash loses at most a second of counts (the
 * quota is then slightly generous, never stricter).
 */
export class DailyApiQuota implements ApiQuota {
  /** by workspace id (the guard's row hands the same string every request): the current day's window */
  private windows = new Map<string, Window>();
  private pendingTotal = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** the last of the row operations queued (they run one at a time) */
  private queue: Promise<unknown> = Promise.resolve();
  private read: Statement<{ used: number }>;
  private add: Statement<{ used: number }>;

  constructor(private db: DB) {
    this.read = db.prepare("SELECT used FROM usage_counters WHERE workspace_id = ? AND metric = ? AND period = ?");
    this.add = db.prepare(
      `INSERT INTO usage_counters (workspace_id, metric, period, used) VALUES (?, ?, ?, ?)
       ON CONFLICT (workspace_id, metric, period) DO UPDATE SET used = usage_counters.used + excluded.used RETURNING used`,
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

  /**
   * Takes one request of the day's quota; the day's count after it, or null when over `limit`.
   * At once (no promise) when the workspace's window is in memory and below the limit.
   */
  take(workspaceId: string, at: Date, limit: number): number | null | Promise<number | null> {
    const period = this.periodOf(at);
    const w = this.windows.get(workspaceId);
    if (w && w.period === period && w.stored + w.writing + w.pending + 1 <= limit) return this.admit(w);
    return this.exclusive(() => this.takeSlow(workspaceId, period, limit));
  }

  /** take() when the row must be read or written first: a new window, a new day, or at the limit. */
  private async takeSlow(workspaceId: string, period: string, limit: number): Promise<number | null> {
    let w = this.windows.get(workspaceId);
    while (w && w.period !== period) {
      await this.write(); // a new day: the last day's counts are written before its window goes
      w = this.windows.get(workspaceId);
    }
    if (!w) {
      w = { workspaceId, period, stored: await this.stored(workspaceId, period), writing: 0, pending: 0 };
      this.windows.set(workspaceId, w);
    }
    if (w.stored + w.writing + w.pending + 1 > limit) {
      await this.refresh(w); // the row may have changed under us: decide on its current value
      if (w.stored + w.writing + w.pending + 1 > limit) return null;
    }
    return this.admit(w);
  }

  private admit(w: Window): number {
    w.pending++;
    this.pendingTotal++;
    const used = w.stored + w.writing + w.pending;
    if (this.pendingTotal >= FLUSH_AT) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.flush().catch(() => this.flushSoon());
    } else this.flushSoon();
    return used;
  }

  /** Admitted requests not yet written, for a workspace's current day (usage views add them). */
  pendingOf(workspaceId: string, at: Date): number {
    const w = this.windows.get(workspaceId);
    return w && w.period === usagePeriod("apiRequestsPerDay", at) ? w.writing + w.pending : 0;
  }

  /** Writes every pending count in one transaction; on failure the counts stay pending for the next flush. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    return this.exclusive(() => this.write());
  }

  /** Runs a row operation after those queued before it. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  private async write(): Promise<void> {
    const batch = [...this.windows.values()].filter((w) => w.pending > 0).map((w) => ({ w, n: w.pending }));
    for (const { w, n } of batch) {
      w.pending -= n;
      w.writing += n;
      this.pendingTotal -= n;
    }
    if (batch.length) {
      let rows: ({ used: number } | undefined)[];
      try {
        rows = await this.db.tx(async () => {
          const out: ({ used: number } | undefined)[] = [];
          for (const { w, n } of batch) out.push(await this.add.get(w.workspaceId, "apiRequestsPerDay", w.period, n));
          return out;
        });
      } catch (err) {
        for (const { w, n } of batch) {
          w.writing -= n;
          w.pending += n;
          this.pendingTotal += n;
        }
        throw err;
      }
      batch.forEach(({ w, n }, i) => {
        w.writing -= n;
        w.stored = rows[i]?.used ?? w.stored + n;
      });
    }
    // every count is in the rows now: the next request of a workspace reads its row again
    // (a window admitted into while this wrote keeps its count for the next flush)
    for (const [id, w] of this.windows) if (w.pending === 0 && w.writing === 0) this.windows.delete(id);
  }

  private flushSoon(): void {
    this.timer ??= unref(
      setTimeout(() => {
        this.timer = null;
        // the database is busy or failing: the counts wait in memory
        this.flush().catch(() => this.flushSoon());
      }, FLUSH_MS),
    );
  }

  /** At the limit: writes this window's pending count and reads the row's current value. */
  private async refresh(w: Window): Promise<void> {
    if (w.pending > 0) {
      const n = w.pending;
      w.pending -= n;
      w.writing += n;
      this.pendingTotal -= n;
      let row: { used: number } | undefined;
      try {
        row = await this.add.get(w.workspaceId, "apiRequestsPerDay", w.period, n);
      } catch (err) {
        w.writing -= n;
        w.pending += n;
        this.pendingTotal += n;
        throw err;
      }
      w.writing -= n;
      w.stored = row?.used ?? w.stored + n;
    } else {
      w.stored = await this.stored(w.workspaceId, w.period);
    }
  }

  private async stored(workspaceId: string, period: string): Promise<number> {
    return (await this.read.get(workspaceId, "apiRequestsPerDay", period))?.used ?? 0;
  }
}

function unref<T>(t: T): T {
  (t as { unref?: () => void }).unref?.();
  return t;
}
