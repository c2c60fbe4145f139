import type { AppDeps } from "../../deps.ts";
import type { WriteHealth } from "../../ops/write-health.ts";
import { leaseMs, sendAttempt } from "./deliver.ts";
import { lockWebhooksFirst, recordAttempt, recordAttempts, type FinishedAttempt } from "./record.ts";
import { dueWindow, type ClaimedDelivery, type DeliveryStore } from "./store.ts";

/** An attempt whose answer is in, waiting for the next group commit. */
interface Finished {
  d: ClaimedDelivery;
  /** null when sending threw unexpectedly: nothing to record, the lease runs out */
  attempt: FinishedAttempt | null;
  done: () => void;
}

/** Claims queued per sending slot of a webhook that answers fast (PostgreSQL). */
const QUEUE_PER_SLOT = 7;
/** A webhook whose answers take less than this (moving average) gets claims queued ahead. */
const FAST_ANSWER_MS = 250;
/**
 * What a failed attempt counts as in that average: a receiver that fails gains nothing from
 * claims queued ahead (its deliveries wait for their retries), and is not sent to faster.
 */
const SLOW_ANSWER_MS = 10 * FAST_ANSWER_MS;

/**
 * Sends due deliveries. The outbox rows are the durable queue (`next_attempt_at`,
 * `lease_until`, attempts as the fence), exactly as the job queue works; this loop only
 * leases them. It keeps its own slots instead of the job worker's: a receiver may take the
 * whole time-out, and bounded concurrency per webhook and in total keeps one slow receiver
 * from delaying the others (or the rest of the server's jobs).
 *
 * Outcomes are group-committed: attempts that finish in the same turn of the event loop are
 * recorded in ONE transaction (each still fenced by its attempt number), and the slots they
 * free are refilled by claims in that same transaction. An attempt holds its slot until its
 * outcome is committed; one whose outcome was not committed when the process died is sent
 * again when its lease runs out, as after a crash mid-attempt (at least once).
 */
export class WebhookDispatcher {
  private store: DeliveryStore;
  private health: WriteHealth;
  /** entries of the due order a claim reads before it looks webhook by webhook (store.ts) */
  private window: number;
  /** claims held per webhook: queued, being sent, or waiting for their outcome's commit */
  private perWebhook = new Map<string, number>();
  /** attempts being sent per webhook (at most its cap) */
  private sending = new Map<string, number>();
  /** claims waiting for one of their webhook's sending slots (PostgreSQL), with when they were claimed */
  private queued = new Map<string, { d: ClaimedDelivery; at: number }[]>();
  private queuedTotal = 0;
  /** claims a webhook may hold beyond its cap, queued (see `depth`) */
  private depth: number;
  /** claims the dispatcher may hold in all */
  private total: number;
  private stopping = false;
  /** each webhook's recent answer time (ms, a moving average) */
  private answerMs = new Map<string, number>();
  /** the group commit under way (PostgreSQL: one at a time; the next takes what finished meanwhile) */
  private flushing: Promise<void> | null = null;
  /** attempts in flight, by their claim (freeing one is a lookup, not a scan) */
  private running = new Map<ClaimedDelivery, Promise<void>>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private wakeQueued = false;
  private started = false;
  private pumping = false;
  private finished: Finished[] = [];
  private flushQueued = false;

  constructor(private deps: AppDeps) {
    this.store = deps.deliveries;
    this.health = deps.writeHealth;
    this.window = dueWindow(deps.config.webhookConcurrency);
    // PostgreSQL: a webhook's next deliveries are claimed before its slots free up, so an answer
    // in is followed by the next attempt at once, not after the outcome's transaction (which
    // waits its turn behind every other write). SQLite's transactions take no such wait.
    this.depth = deps.db.engine === "postgres" ? deps.config.webhookConcurrencyPerWebhook * QUEUE_PER_SLOT : 0;
    this.total = deps.config.webhookConcurrency * (this.depth ? 1 + QUEUE_PER_SLOT : 1);
  }

  /**
   * The claims a webhook may hold: its cap, and on PostgreSQL as many again queued per slot
   * while it answers fast (a slow receiver's queued claims would wait through their leases).
   */
  private limitOf(webhookId: string): number {
    const cap = this.deps.config.webhookConcurrencyPerWebhook;
    return this.depth && (this.answerMs.get(webhookId) ?? Infinity) < FAST_ANSWER_MS ? cap + this.depth : cap;
  }

  /** claims held in all: being sent or recorded, and queued */
  private get held(): number {
    return this.running.size + this.queuedTotal;
  }

  /** one group commit: the outcomes, then the claims that refill their slots */
  private recordAndRefill(attempts: FinishedAttempt[], webhookIds: string[], freeing: number): Promise<ClaimedDelivery[]> {
    // PostgreSQL, successes only: nothing but the deliveries' own rows (fenced by their attempt
    // numbers), the webhooks' success marks and claims (fenced by their leases): no wait for the
    // store's write lock behind the inbound groups (see `claimOptions`)
    const successes = this.depth > 0 && attempts.every((a) => a.o.ok);
    return this.deps.db.tx(async () => {
      if (successes) {
        // nothing the claims depend on: the outcomes and the claims go out in one flight, run in
        // that order on the connection
        const locked = lockWebhooksFirst(this.deps, webhookIds);
        const [, , claimed] = await Promise.all([locked, recordAttempts(this.deps, attempts), this.refill(webhookIds, freeing)]);
        return claimed;
      }
      const outcomes = await recordAttempts(this.deps, attempts);
      outcomes.forEach((o, i) => o.deactivated && this.switchedOff.add(attempts[i]!.d.webhookId));
      return this.refill(webhookIds, freeing);
    }, successes ? this.claimOptions : undefined);
  }

  /**
   * PostgreSQL: claims, and the outcomes of successes, run without the store's write lock
   * (`TxOptions.rowLocked`). A claim re-checks its row's lease as it takes it (a row another
   * claim took meanwhile, on this node or another, is skipped), an outcome is fenced by its
   * attempt number, a success mark touches only its webhook's health columns, and none of
   * them publishes an event or writes the cluster's event log; the outcomes' webhooks are
   * locked before their deliveries, as a change to a webhook locks them. Without it they waited their
   * turn behind every inbound group, and a delivery whose row was committed waited for the
   * next claim that much longer. A failure's outcome (it may switch the webhook off, park its
   * deliveries and queue a job) still takes the lock.
   */
  private claimOptions = { rowLocked: true };

  /** webhooks an outcome switched off: their queued claims go back once it is committed */
  private switchedOff = new Set<string>();

  /** Deliveries in flight right now. */
  get inFlight(): number {
    return this.running.size;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.schedule(0);
  }

  /** Stops claiming; waits for attempts in flight up to `timeoutMs`, then hands the rest back. */
  async stop(timeoutMs: number): Promise<void> {
    this.started = false;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // claims never sent go back as they were (their attempt not counted)
    for (const id of [...this.queued.keys()]) await this.handBackQueued(id);
    await Promise.race([Promise.allSettled([...this.running.values()]), Bun.sleep(timeoutMs)]);
    await this.flush(); // outcomes already in hand are recorded, not handed back
    for (const id of [...this.queued.keys()]) await this.handBackQueued(id);
    for (const d of this.running.keys()) {
      await this.store.release(d.id, d.attempts, this.deps.clock.now().getTime()).catch((err) => this.deps.log.error("webhook delivery not handed back", { deliveryId: d.id, err }));
    }
    this.running.clear();
    this.perWebhook.clear();
    this.sending.clear();
  }

  /** Nudges the loop (new deliveries were committed, or an attempt finished). */
  wake(): void {
    if (!this.started || this.wakeQueued) return;
    this.wakeQueued = true;
    // no timer: a setTimeout(0) adds a millisecond or more before every delivery; the commits of
    // one turn of the event loop share this one wake-up
    setImmediate(() => {
      this.wakeQueued = false;
      void this.pump();
    });
  }

  /** Sends every due delivery (within the limits) and waits for them; for tests and the CLI. Returns how many attempts ran. */
  async runDue(): Promise<number> {
    let n = 0;
    for (;;) {
      const launched = await this.fill();
      n += launched;
      if (!this.running.size) return n;
      await Promise.race(this.running.values());
    }
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pump(), ms);
  }

  private async pump(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.started || this.pumping) return;
    this.pumping = true;
    let delay = this.deps.config.jobPollMs;
    try {
      await this.fill();
      if (this.running.size) this.health.ok("webhook claim", this.deps.log);
      // at the total cap, finishing attempts wake the loop; polling then only guards against a lost wake-up
      const full = this.held >= this.total;
      if (!full) delay = await this.nextDelay();
    } catch (err) {
      // a full disk: back off (claiming again at once, with deliveries due, would spin)
      if (!this.health.failed("webhook claim", err, this.deps.log)) this.deps.log.error("webhook claim failed", { err });
      delay = this.health.backoffMs("webhook claim");
    } finally {
      this.pumping = false;
    }
    if (this.started && !this.timer) this.schedule(delay);
  }

  /** Webhooks already at their in-flight cap. */
  private busy(): string[] {
    return [...this.perWebhook].filter(([id, n]) => n >= this.limitOf(id)).map(([id]) => id);
  }

  /** Claims deliveries until the limits or the due work run out, in one transaction (one commit), then launches them. */
  private async fill(): Promise<number> {
    const claimed: ClaimedDelivery[] = [];
    const room = this.total - this.held;
    if (room <= 0) return 0;
    const counts = new Map(this.perWebhook);
    await this.deps.db.tx(async () => {
      // the claims of one transaction are made at one moment: they share the bound of the due order
      const now = this.deps.clock.now().getTime();
      const bound = await this.store.dueBound(now, this.window);
      while (claimed.length < room) {
        const busy = [...counts].filter(([id, n]) => n >= this.limitOf(id)).map(([id]) => id);
        const d = await this.store.claimDue(now, leaseMs(this.deps), busy, bound);
        if (!d) break;
        claimed.push(d);
        counts.set(d.webhookId, (counts.get(d.webhookId) ?? 0) + 1);
        // PostgreSQL: the rest of this webhook's room in one statement, not one claim each
        const more = this.depth ? Math.min(room - claimed.length, this.limitOf(d.webhookId) - counts.get(d.webhookId)!) : 0;
        if (more > 0) {
          const got = await this.store.claimNextNOfEach([{ id: d.webhookId, n: more }], now, leaseMs(this.deps));
          claimed.push(...got);
          counts.set(d.webhookId, counts.get(d.webhookId)! + got.length);
        }
      }
    }, this.claimOptions);
    for (const d of claimed) this.launch(d);
    return claimed.length;
  }

  /** A claim: sent now if its webhook has a sending slot free, else queued for the next one. */
  private launch(d: ClaimedDelivery): void {
    this.perWebhook.set(d.webhookId, (this.perWebhook.get(d.webhookId) ?? 0) + 1);
    if ((this.sending.get(d.webhookId) ?? 0) < this.deps.config.webhookConcurrencyPerWebhook) return this.send(d);
    // claimed by a group commit that began before the stop: back at once
    if (this.stopping) return void this.unclaim(d);
    let q = this.queued.get(d.webhookId);
    if (!q) this.queued.set(d.webhookId, (q = []));
    q.push({ d, at: this.deps.clock.now().getTime() });
    this.queuedTotal++;
  }

  private send(d: ClaimedDelivery): void {
    this.sending.set(d.webhookId, (this.sending.get(d.webhookId) ?? 0) + 1);
    const at = this.deps.clock.now().getTime();
    const p: Promise<void> = sendAttempt(this.deps, d, at).then(
      (o) => {
        this.answered(d, o.ok ? o.durationMs : SLOW_ANSWER_MS);
        return this.finish(d, { d, o, opts: { manual: false, at } });
      },
      (err) => {
        this.answered(d, SLOW_ANSWER_MS);
        this.deps.log.error("webhook attempt failed", { deliveryId: d.id, err });
        return this.finish(d, null);
      },
    );
    this.running.set(d, p);
  }

  /** An attempt's answer is in: its sending slot goes to the webhook's next queued claim, if any. */
  private answered(d: ClaimedDelivery, ms: number): void {
    const avg = this.answerMs.get(d.webhookId);
    this.answerMs.set(d.webhookId, avg === undefined ? ms : avg * 0.8 + ms * 0.2);
    const left = (this.sending.get(d.webhookId) ?? 1) - 1;
    if (left > 0) this.sending.set(d.webhookId, left);
    else this.sending.delete(d.webhookId);
    const q = this.queued.get(d.webhookId);
    if (!q || this.stopping) return;
    // a claim queued too long has too little of its lease left for a whole attempt: handed back
    const fresh = this.deps.clock.now().getTime() - (leaseMs(this.deps) - this.deps.config.webhookTimeoutMs - 1_000);
    while (q.length) {
      const next = q.shift()!;
      this.queuedTotal--;
      if (next.at >= fresh) {
        this.send(next.d);
        break;
      }
      this.unclaim(next.d);
    }
    if (!q.length) this.queued.delete(d.webhookId);
  }

  /** Hands a queued claim back (never sent: its attempt is not counted). */
  private unclaim(d: ClaimedDelivery): Promise<void> {
    this.dropHeld(d.webhookId);
    return this.store
      .unclaim(d.id, d.attempts)
      .catch((err) => this.deps.log.error("webhook delivery not handed back", { deliveryId: d.id, err }));
  }

  /** Hands back every queued claim of a webhook (stopping, or the webhook was switched off). */
  private async handBackQueued(webhookId: string): Promise<void> {
    const q = this.queued.get(webhookId) ?? [];
    this.queued.delete(webhookId);
    this.queuedTotal -= q.length;
    for (const { d } of q) await this.unclaim(d);
  }

  private dropHeld(webhookId: string): void {
    const left = (this.perWebhook.get(webhookId) ?? 1) - 1;
    if (left > 0) this.perWebhook.set(webhookId, left);
    else this.perWebhook.delete(webhookId);
  }

  /** Queues a finished attempt for the next group commit; resolves once it is recorded and its slot is free. */
  private finish(d: ClaimedDelivery, attempt: FinishedAttempt | null): Promise<void> {
    return new Promise<void>((done) => {
      this.finished.push({ d, attempt, done });
      // a group commit under way takes it when it is done
      if (!this.flushing) this.queueFlush();
    });
  }

  /** Records the queued outcomes in one transaction, frees their slots and refills them in it. */
  private async flush(): Promise<void> {
    this.flushQueued = false;
    if (!this.depth) return this.flushOnce();
    // PostgreSQL: one group commit at a time (each waits its turn for the write lock); what
    // finishes meanwhile goes in the next, and the queued claims keep the receivers busy
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      do await this.flushOnce();
      while (this.finished.length);
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
      if (this.finished.length) this.queueFlush();
    }
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    // attempts finishing in this turn of the event loop share the transaction
    setImmediate(() => void this.flush());
  }

  private async flushOnce(): Promise<void> {
    const batch = this.finished.splice(0);
    if (!batch.length) return;
    // an attempt keeps its slot until its outcome is committed: runDue (and stop) must not see
    // the dispatcher idle while a group commit is still under way
    const attempts = batch.flatMap((f) => (f.attempt ? [f.attempt] : []));
    let claimed: ClaimedDelivery[] = [];
    try {
      claimed = await this.recordAndRefill(attempts, batch.map((f) => f.d.webhookId), batch.length);
      this.health.ok("webhook outcome", this.deps.log);
    } catch (err) {
      claimed = [];
      // one outcome that cannot be stored must not cost the others theirs: each on its own
      for (const a of attempts) {
        try {
          await recordAttempt(this.deps, a.d, a.o, a.opts);
        } catch (e) {
          // not recorded: the delivery's lease runs out and it is sent again (at least once)
          if (!this.health.failed("webhook outcome", e, this.deps.log)) this.deps.log.error("webhook attempt failed to record", { deliveryId: a.d.id, err: e, batchErr: err });
        }
      }
    }
    for (const f of batch) this.free(f.d);
    for (const id of this.switchedOff) await this.handBackQueued(id);
    this.switchedOff.clear();
    for (const d of claimed) this.launch(d);
    for (const f of batch) f.done();
    if (claimed.length < batch.length) {
      if (this.health.failing) this.schedule(this.health.backoffMs("webhook outcome"));
      else this.wake();
    }
  }

  private free(d: ClaimedDelivery): void {
    this.running.delete(d);
    this.dropHeld(d.webhookId);
  }

  /**
   * Claims (in the caller's transaction) as many deliveries of each webhook as its attempts that
   * ended: one index probe per webhook, no scan, and one statement per round (a webhook whose
   * k attempts ended is in the first k rounds), not one per webhook. On PostgreSQL, where each
   * statement is a round trip, one statement claims every webhook's k at once.
   */
  private async refill(webhookIds: string[], freeing: number): Promise<ClaimedDelivery[]> {
    const claimed: ClaimedDelivery[] = [];
    if (!this.started) return claimed;
    const freed = new Map<string, number>();
    for (const id of webhookIds) freed.set(id, (freed.get(id) ?? 0) + 1);
    const now = this.deps.clock.now().getTime();
    if (this.deps.db.engine === "postgres") {
      // every webhook's freed slots in one statement (a round trip per round otherwise)
      let room = this.total - (this.held - freeing);
      const wanted: { id: string; n: number }[] = [];
      for (const [id, ended] of freed) {
        if (room <= 0) break;
        // the ended attempts' claims, and up to the webhook's limit (its queue topped up)
        const n = Math.min(room, Math.max(ended, this.limitOf(id) - (this.perWebhook.get(id) ?? 0) + ended));
        wanted.push({ id, n });
        room -= n;
      }
      return wanted.length ? this.store.claimNextNOfEach(wanted, now, leaseMs(this.deps)) : claimed;
    }
    while (freed.size) {
      // the batch's own slots are still held (freed once its outcomes are committed)
      const room = this.total - (this.held - freeing) - claimed.length;
      if (room <= 0) break;
      const ids = [...freed.keys()].slice(0, room);
      const got = await this.store.claimNextOfEach(ids, now, leaseMs(this.deps));
      claimed.push(...got);
      const more = new Set(got.map((d) => d.webhookId));
      // a webhook with nothing more due (or switched off) drops out; the others go once per freed slot
      for (const id of ids) {
        const n = freed.get(id)! - 1;
        if (n > 0 && more.has(id)) freed.set(id, n);
        else freed.delete(id);
      }
    }
    return claimed;
  }

  private async nextDelay(): Promise<number> {
    const poll = this.deps.config.jobPollMs;
    const now = this.deps.clock.now().getTime();
    const t = await this.store.nextDue(this.busy(), now, this.window);
    if (t === null) return poll;
    return Math.max(0, Math.min(poll, t - now));
  }
}
