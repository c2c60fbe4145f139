import type { Clock } from "../clock.ts";
import type { DB, Statement } from "../db/store.ts";
import type { Logger } from "../log.ts";
import type { WriteHealth } from "../ops/write-health.ts";

/** Thrown by a handler to give up at once: the job is marked failed, not retried. */
export class PermanentJobError extends Error {}

/**
 * Thrown by a handler to run again after a delay (a receiver's Retry-After, a pacing gap, the
 * rest of a queue): a reschedule, not a failure, so it does not spend an attempt.
 */
export class RetryLaterError extends Error {
  constructor(readonly delayMs: number, message = "retry later") {
    super(message);
  }
}

export interface JobContext {
  jobId: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
}

export interface JobHandler<P = unknown> {
  kind: string;
  run(payload: P, ctx: JobContext): Promise<void> | void;
  /** Default 10. */
  maxAttempts?: number;
  /** Delay before retry number `attempt + 1`. Default exponential from 1 s, capped at 1 h, with jitter. */
  backoffMs?(attempt: number): number;
  /** How long a claim holds before another worker may take the job. Default 60 s; extended while running. */
  leaseMs?: number;
}

export interface EnqueueOptions {
  delayMs?: number;
  runAt?: Date;
  maxAttempts?: number;
  /** At most one pending job per key: enqueueing again returns the existing job's id. */
  dedupeKey?: string;
}

interface JobRow {
  id: string;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
}

/** Exponential backoff with full jitter in the upper half. */
export function defaultBackoff(attempt: number): number {
  const base = Math.min(3_600_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base / 2 + Math.random() * (base / 2));
}

/**
 * The durable job queue. Enqueue joins the caller's transaction (`db.tx`): the job exists
 * exactly when the change that wanted it is committed.
 */
export class JobQueue {
  private handlers = new Map<string, JobHandler<any>>();
  private running = new Map<Promise<void>, JobRow>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private started = false;
  private stopping = false;
  private pumping = false;
  private stmts: Record<"insert" | "findDedupe" | "claim" | "extend" | "done" | "fail" | "retry" | "release" | "releaseAll" | "nextDue", Statement<any>>;

  constructor(
    private db: DB,
    private clock: Clock,
    private log: Logger,
    private opts: { concurrency: number; pollMs: number },
    /** where failed writes are reported (the runtime's one; see src/ops/write-health.ts) */
    private health: WriteHealth,
  ) {
    const pg = db.engine === "postgres";
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO jobs (id, kind, payload, status, run_at, attempts, max_attempts, dedupe_key, created_at, updated_at)
         VALUES (?, ?, ?, 'pending', ?, 0, ?, ?, ?, ?)`,
      ),
      findDedupe: db.prepare(`SELECT id FROM jobs WHERE dedupe_key = ? AND status = 'pending' LIMIT 1`),
      // on PostgreSQL several nodes claim at once: a row another one is claiming is skipped
      claim: db.prepare(
        `UPDATE jobs SET lease_until = ?, attempts = attempts + 1, updated_at = ?
         WHERE id = (SELECT id FROM jobs WHERE status = 'pending' AND run_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
                     ORDER BY run_at LIMIT 1${pg ? " FOR UPDATE SKIP LOCKED" : ""})
         RETURNING id, kind, payload, attempts, max_attempts`,
      ),
      extend: db.prepare(`UPDATE jobs SET lease_until = ? WHERE id = ? AND attempts = ? AND status = 'pending'`),
      done: db.prepare(
        `UPDATE jobs SET status = 'done', lease_until = NULL, last_error = NULL, updated_at = ? WHERE id = ? AND attempts = ?`,
      ),
      fail: db.prepare(
        `UPDATE jobs SET status = 'failed', lease_until = NULL, last_error = ?, updated_at = ? WHERE id = ? AND attempts = ?`,
      ),
      retry: db.prepare(
        `UPDATE jobs SET run_at = ?, lease_until = NULL, last_error = ?, updated_at = ?, attempts = attempts - ? WHERE id = ? AND attempts = ?`,
      ),
      release: db.prepare(`UPDATE jobs SET lease_until = NULL, attempts = attempts - 1, updated_at = ? WHERE id = ? AND attempts = ?`),
      releaseAll: db.prepare(`UPDATE jobs SET lease_until = NULL WHERE status = 'pending' AND lease_until IS NOT NULL`),
      nextDue: db.prepare(
        `SELECT min(${pg ? "greatest" : "max"}(run_at, coalesce(lease_until, 0))) AS t FROM jobs WHERE status = 'pending'`,
      ),
    };
  }

  /** Registers the handler of one job kind. */
  register<P>(handler: JobHandler<P>): void {
    if (this.handlers.has(handler.kind)) throw new Error(`job kind ${handler.kind} registered twice`);
    this.handlers.set(handler.kind, handler);
  }

  /** Adds a job; call inside `db.tx` to make it part of that change. Returns the job id. */
  async enqueue(kind: string, payload: unknown, opts: EnqueueOptions = {}): Promise<string> {
    // look, then insert: one transaction (a savepoint inside the caller's), or two enqueues race
    if (opts.dedupeKey && !this.db.inTx) return this.db.tx(() => this.enqueue(kind, payload, opts));
    if (opts.dedupeKey) {
      const existing = (await this.stmts.findDedupe.get(opts.dedupeKey)) as { id: string } | undefined;
      if (existing) return existing.id;
    }
    const now = this.clock.now().getTime();
    const runAt = opts.runAt ? opts.runAt.getTime() : now + (opts.delayMs ?? 0);
    const id = Bun.randomUUIDv7();
    const maxAttempts = opts.maxAttempts ?? this.handlers.get(kind)?.maxAttempts ?? 10;
    await this.stmts.insert.run(id, kind, JSON.stringify(payload ?? null), runAt, maxAttempts, opts.dedupeKey ?? null, now, now);
    this.db.afterCommit(() => queueMicrotask(() => this.wake()));
    return id;
  }

  /**
   * Whether a pending job (waiting or leased) carries `dedupeKey`: a read a caller may start
   * early, inside the transaction that would enqueue (while it holds the write lock nothing
   * else enqueues); `enqueue` with the key looks again.
   */
  async hasPending(dedupeKey: string): Promise<boolean> {
    return (await this.stmts.findDedupe.get(dedupeKey)) !== undefined;
  }

  /**
   * Frees the leases a previous process held (it crashed or was killed). On SQLite, with one
   * server per data dir, no lease at start-up belongs to a live worker. On PostgreSQL another
   * node's lease may be live: nothing is freed, and an expired lease is claimable anyway.
   * Returns how many were freed.
   */
  async releaseAbandoned(): Promise<number> {
    if (this.db.engine === "postgres") return 0;
    return (await this.stmts.releaseAll.run()).changes;
  }

  /** Starts the worker loop. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.schedule(0);
  }

  /** Stops claiming; waits for running jobs up to `timeoutMs`, then releases their leases. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const all = Promise.allSettled([...this.running.keys()]);
    await Promise.race([all, Bun.sleep(timeoutMs)]);
    // still running after the grace period: hand the job back so the next start runs it again
    for (const row of this.running.values()) {
      await this.stmts.release.run(this.clock.now().getTime(), row.id, row.attempts);
      this.log.warn("job released at shutdown", { jobId: row.id, kind: row.kind });
    }
    this.running.clear();
    this.stopping = false;
  }

  /** Runs every due job now and waits for them (tests and the CLI use this). Returns how many ran. */
  async runDue(): Promise<number> {
    let n = 0;
    for (;;) {
      const row = await this.claim();
      if (!row) break;
      n++;
      await this.execute(row);
    }
    return n;
  }

  /** Nudges the loop after new work appeared. */
  wake(): void {
    if (this.started && !this.stopping) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), ms);
  }

  private async pump(): Promise<void> {
    this.timer = null;
    if (!this.started || this.stopping || this.pumping) return;
    this.pumping = true;
    let delay = this.opts.pollMs;
    try {
      while (this.running.size < this.opts.concurrency && !this.stopping) {
        const row = await this.claim();
        if (!row) break;
        this.health.ok("job claim", this.log);
        const p = this.execute(row).finally(() => {
          this.running.delete(p);
          this.wake();
        });
        this.running.set(p, row);
      }
      delay = await this.nextDelay();
    } catch (err) {
      // a full disk: back off instead of claiming again at once (a due job would make it a spin)
      if (!this.health.failed("job claim", err, this.log)) this.log.error("job claim failed", { err });
      delay = this.health.backoffMs("job claim");
    } finally {
      this.pumping = false;
    }
    if (this.started && !this.stopping && !this.timer) this.schedule(delay);
  }

  private async nextDelay(): Promise<number> {
    const row = (await this.stmts.nextDue.get()) as { t: number | null } | undefined;
    if (!row || row.t === null) return this.opts.pollMs;
    return Math.max(0, Math.min(this.opts.pollMs, Number(row.t) - this.clock.now().getTime()));
  }

  private async claim(): Promise<JobRow | null> {
    const now = this.clock.now().getTime();
    // the lease is provisional; execute() sets the handler's own lease right away
    return ((await this.stmts.claim.get(now + 60_000, now, now, now)) as JobRow | undefined) ?? null;
  }

  /** Runs one claimed job and records its outcome; never rejects (a failed write is reported, see `book`). */
  private async execute(row: JobRow): Promise<void> {
    const handler = this.handlers.get(row.kind);
    const now = () => this.clock.now().getTime();
    if (!handler) {
      await this.book(row, "fail", () => this.stmts.fail.run(`no handler for job kind ${row.kind}`, now(), row.id, row.attempts));
      this.log.error("job without handler", { jobId: row.id, kind: row.kind });
      return;
    }
    const leaseMs = handler.leaseMs ?? 60_000;
    // the lease and its heartbeat are bookkeeping: a write that fails (full disk) leaves the
    // provisional lease in place, and a lease that ran out lets the job run again later, as
    // after a crash; it never ends the process from a timer
    await this.book(row, "lease", () => this.stmts.extend.run(now() + leaseMs, row.id, row.attempts));
    const heartbeat = setInterval(() => void this.book(row, "heartbeat", () => this.stmts.extend.run(now() + leaseMs, row.id, row.attempts)), Math.max(50, leaseMs / 3));
    const ctx: JobContext = { jobId: row.id, attempt: row.attempts, maxAttempts: row.max_attempts };
    let outcome: { err: unknown } | null = null;
    try {
      await handler.run(JSON.parse(row.payload), ctx);
    } catch (err) {
      outcome = { err };
    } finally {
      clearInterval(heartbeat);
    }
    if (!outcome) {
      // not recorded (full disk): the job stays claimed until its lease runs out, then runs again
      if (await this.book(row, "done", () => this.stmts.done.run(now(), row.id, row.attempts))) this.health.ok(`job ${row.kind}`, this.log);
      return;
    }
    const err = outcome.err;
    const message = err instanceof Error ? err.message : String(err);
    // the handler's own writes were refused (full disk): the job's fault it is not, so it is not
    // failed for good however often that happens, and tries again soon after space returns
    const storage = this.health.failed(`job ${row.kind}`, err, this.log);
    if (!storage) this.health.ok(`job ${row.kind}`, this.log); // its writes went through: it failed (or waits) for its own reasons
    const later = !storage && err instanceof RetryLaterError;
    if (!storage && (err instanceof PermanentJobError || (!later && row.attempts >= row.max_attempts))) {
      if (await this.book(row, "fail", () => this.stmts.fail.run(message, now(), row.id, row.attempts)))
        this.log.warn("job failed for good", { jobId: row.id, kind: row.kind, attempts: row.attempts, error: message });
    } else {
      const delay = storage ? this.health.backoffMs(`job ${row.kind}`) : later ? (err as RetryLaterError).delayMs : (handler.backoffMs ?? defaultBackoff)(row.attempts);
      // a reschedule gives its attempt back
      if (await this.book(row, "retry", () => this.stmts.retry.run(now() + delay, message, now(), later ? 1 : 0, row.id, row.attempts)))
        this.log.debug("job will retry", { jobId: row.id, kind: row.kind, attempt: row.attempts, delayMs: delay, error: message });
    }
  }

  /** One bookkeeping write of a job; a failure is logged and reported, never thrown. Resolves to whether it was written. */
  private async book(row: JobRow, step: string, write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      this.health.ok("job bookkeeping", this.log);
      return true;
    } catch (err) {
      if (!this.health.failed("job bookkeeping", err, this.log)) this.log.error("job bookkeeping failed", { jobId: row.id, kind: row.kind, step, err });
      return false;
    }
  }
}
