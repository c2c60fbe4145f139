import type { AppDeps } from "../../deps.ts";
import type { WriteHealth } from "../../ops/write-health.ts";
import { leaseMs, sendAttempt } from "./deliver.ts";
import { recordAttempt, recordAttempts, type FinishedAttempt } from "./record.ts";
import { dueWindow, type ClaimedDelivery, type DeliveryStore } from "./store.ts";

/** An attempt whose answer is in, waiting for the next group commit. */
interface Finished {
  d: ClaimedDelivery;
  /** null when sending threw unexpectedly: nothing to record, the lease runs out */
  attempt: FinishedAttempt | null;
  done: () => void;
}

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
  private perWebhook = new Map<string, number>();
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
  }

  /** one group commit: the outcomes, then the claims that refill their slots */
  private recordAndRefill(attempts: FinishedAttempt[], webhookIds: string[], freeing: number): Promise<ClaimedDelivery[]> {
    return this.deps.db.tx(async () => {
      await recordAttempts(this.deps, attempts);
      return this.refill(webhookIds, freeing);
    });
  }

  /** Deliveries in flight right now. */
  get inFlight(): number {
    return this.running.size;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Stops claiming; waits for attempts in flight up to `timeoutMs`, then hands the rest back. */
  async stop(timeoutMs: number): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.race([Promise.allSettled([...this.running.values()]), Bun.sleep(timeoutMs)]);
    await this.flush(); // outcomes already in hand are recorded, not handed back
    for (const d of this.running.keys()) {
      await this.store.release(d.id, d.attempts, this.deps.clock.now().getTime()).catch((err) => this.deps.log.error("webhook delivery not handed back", { deliveryId: d.id, err }));
    }
    this.running.clear();
    this.perWebhook.clear();
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
      const full = this.running.size >= this.deps.config.webhookConcurrency;
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
    const cap = this.deps.config.webhookConcurrencyPerWebhook;
    return [...this.perWebhook].filter(([, n]) => n >= cap).map(([id]) => id);
  }

  /** Claims deliveries until the limits or the due work run out, in one transaction (one commit), then launches them. */
  private async fill(): Promise<number> {
    const claimed: ClaimedDelivery[] = [];
    const room = this.deps.config.webhookConcurrency - this.running.size;
    if (room <= 0) return 0;
    const cap = this.deps.config.webhookConcurrencyPerWebhook;
    const counts = new Map(this.perWebhook);
    await this.deps.db.tx(async () => {
      // the claims of one transaction are made at one moment: they share the bound of the due order
      const now = this.deps.clock.now().getTime();
      const bound = await this.store.dueBound(now, this.window);
      while (claimed.length < room) {
        const busy = [...counts].filter(([, n]) => n >= cap).map(([id]) => id);
        const d = await this.store.claimDue(now, leaseMs(this.deps), busy, bound);
        if (!d) break;
        claimed.push(d);
        counts.set(d.webhookId, (counts.get(d.webhookId) ?? 0) + 1);
      }
    });
    for (const d of claimed) this.launch(d);
    return claimed.length;
  }

  private launch(d: ClaimedDelivery): void {
    this.perWebhook.set(d.webhookId, (this.perWebhook.get(d.webhookId) ?? 0) + 1);
    const at = this.deps.clock.now().getTime();
    const p: Promise<void> = sendAttempt(this.deps, d, at).then(
      (o) => this.finish(d, { d, o, opts: { manual: false, at } }),
      (err) => {
        this.deps.log.error("webhook attempt failed", { deliveryId: d.id, err });
        return this.finish(d, null);
      },
    );
    this.running.set(d, p);
  }

  /** Queues a finished attempt for the next group commit; resolves once it is recorded and its slot is free. */
  private finish(d: ClaimedDelivery, attempt: FinishedAttempt | null): Promise<void> {
    return new Promise<void>((done) => {
      this.finished.push({ d, attempt, done });
      if (this.flushQueued) return;
      this.flushQueued = true;
      // attempts finishing in this turn of the event loop share the transaction
      setImmediate(() => void this.flush());
    });
  }

  /** Records the queued outcomes in one transaction, frees their slots and refills them in it. */
  private async flush(): Promise<void> {
    this.flushQueued = false;
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
    for (const d of claimed) this.launch(d);
    for (const f of batch) f.done();
    if (claimed.length < batch.length) {
      if (this.health.failing) this.schedule(this.health.backoffMs("webhook outcome"));
      else this.wake();
    }
  }

  private free(d: ClaimedDelivery): void {
    this.running.delete(d);
    const left = (this.perWebhook.get(d.webhookId) ?? 1) - 1;
    if (left > 0) this.perWebhook.set(d.webhookId, left);
    else this.perWebhook.delete(d.webhookId);
  }

  /**
   * Claims (in the caller's transaction) as many deliveries of each webhook as its attempts that
   * ended: one index probe per webhook, no scan, and one statement per round (a webhook whose
   * k attempts ended is in the first k rounds), not one per webhook.
   */
  private async refill(webhookIds: string[], freeing: number): Promise<ClaimedDelivery[]> {
    const claimed: ClaimedDelivery[] = [];
    if (!this.started) return claimed;
    const freed = new Map<string, number>();
    for (const id of webhookIds) freed.set(id, (freed.get(id) ?? 0) + 1);
    const now = this.deps.clock.now().getTime();
    while (freed.size) {
      // the batch's own slots are still held (freed once its outcomes are committed)
      const room = this.deps.config.webhookConcurrency - (this.running.size - freeing) - claimed.length;
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
