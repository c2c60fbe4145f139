import type { Logger } from "../log.ts";

/**
 * Whether the server's writes go through, as its background writers saw them last.
 *
 * A full disk (or a data dir turned read-only, or a database lock another program holds)
 * makes writes fail while reads still answer. Background writers (the job queue's claims and
 * heartbeats, the webhook dispatcher, the campaign engine through its jobs, the batched API-key
 * bookkeeping) report each failed write here instead of letting it escape a timer, which would
 * end the process: under systemd or Docker that is a crash loop for as long as the disk stays
 * full. They back off (`backoffMs`) and try again; the first write that goes through clears the
 * state. Meanwhile /ready answers 503, at once, without waiting for its own probe.
 *
 * Engine-blind (a refused write of SQLite, of PostgreSQL or of the file system alike). One per
 * runtime, built by createRuntime as `deps.writeHealth`, so a test app and a server in one process
 * do not share it.
 */
export class WriteHealth {
  /** the failing writers, by what they write: each clears its own with its next write that goes through */
  private failures = new Map<string, { error: string; since: number; last: number; count: number }>();

  constructor(private now: () => number = Date.now) {}

  /** The oldest failure being reported, if writes are failing now. */
  get failing(): { what: string; error: string; since: number; count: number } | null {
    const t = this.now();
    let oldest: { what: string; error: string; since: number; count: number } | null = null;
    for (const [what, f] of this.failures) {
      // a writer that stopped trying long ago (its work gone, or done by another path) does not
      // keep the server unready for ever: /ready's own probe decides after this long
      if (t - f.last > STALE_AFTER_MS) continue;
      if (!oldest || f.since < oldest.since) oldest = { what, error: f.error, since: f.since, count: f.count };
    }
    return oldest;
  }

  /** How long `what` waits before trying again: doubles with each failure in a row, 250 ms to 5 s. */
  backoffMs(what: string): number {
    const n = this.failures.get(what)?.count ?? 0;
    return Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.max(0, Math.min(n - 1, 10)));
  }

  /**
   * Records a failed write of `what`. Logs the first failure of a run of them as an error and the
   * rest at debug (a full disk must not also flood the log); returns whether it was a write
   * failure (false: a programming error or the like, which the caller handles as before).
   */
  failed(what: string, err: unknown, log: Logger): boolean {
    if (!isWriteFailure(err)) return false;
    const t = this.now();
    const error = err instanceof Error ? err.message : String(err);
    const f = this.failures.get(what);
    if (!f) {
      if (!this.failures.size) log.error("writes are failing; the server reports itself unready and retries", { what, error, code: errorCode(err) });
      else log.warn("another write failed", { what, error, code: errorCode(err) });
      this.failures.set(what, { error, since: t, last: t, count: 1 });
    } else {
      f.last = t;
      f.count++;
      f.error = error;
      log.debug("write failed again", { what, error, failures: f.count });
    }
    return true;
  }

  /**
   * Records a write of `what` that went through: clears its failure, and a failed request's (a
   * request is not tried again by the server; any write that goes through answers for it). A
   * small write of another writer does not clear a large one's: on a full disk, an update in
   * place can fit where a new row cannot.
   */
  ok(what: string, log?: Logger): void {
    if (!this.failures.size) return;
    for (const key of [what, REQUEST]) {
      const f = this.failures.get(key);
      if (!f) continue;
      this.failures.delete(key);
      if (!this.failures.size) log?.info("writes go through again", { what: key, failedForMs: this.now() - f.since, failures: f.count });
    }
  }
}

/** What a failed write of an HTTP request is recorded as. */
export const REQUEST = "request";

/** The longest back-off between two tries of a failing background write. */
export const MAX_BACKOFF_MS = 5_000;
/** A failure not seen again for this long no longer makes the server unready by itself. */
const STALE_AFTER_MS = 4 * MAX_BACKOFF_MS;

const SQLITE_WRITE_FAILURES = ["SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_BUSY", "SQLITE_CANTOPEN", "SQLITE_LOCKED"];
/**
 * PostgreSQL's SQLSTATEs of a refused write: disk full, insufficient resources, out of memory,
 * too many connections, I/O error, read-only transaction (a standby), the server not accepting
 * connections (starting up, shutting down), a lock not obtained.
 */
const POSTGRES_WRITE_FAILURES = new Set(["53100", "53000", "53200", "53300", "58030", "25006", "57P03", "55P03"]);
const FS_WRITE_FAILURES = new Set(["ENOSPC", "EDQUOT", "EROFS", "EIO", "EFBIG"]);

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** A write the storage refused (full, read-only, I/O error, locked), as opposed to a bug or a constraint. */
export function isWriteFailure(err: unknown): boolean {
  // a query builder may wrap the driver's error: its cause tells
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = errorCode(e);
    if (!code) continue;
    if (FS_WRITE_FAILURES.has(code) || POSTGRES_WRITE_FAILURES.has(code)) return true;
    if (SQLITE_WRITE_FAILURES.some((c) => code === c || code.startsWith(c + "_"))) return true;
  }
  return false;
}
