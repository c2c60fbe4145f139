import type { AppDeps } from "../../deps.ts";
import { attemptDelivery, leaseMs } from "./deliver.ts";
import { deliveryStore, type ClaimedDelivery, type DeliveryStore } from "./store.ts";

/**
 * Sends due deliveries. The outbox rows are the durable queue (`next_attempt_at`,
 * `lease_until`, attempts as the fence), exactly as the job queue works; this loop only
 * leases them. It keeps its own slots instead of the job worker's: a receiver may take the
 * whole time-out, and bounded concurrency per webhook and in total keeps one slow receiver
 * from delaying the others (or the rest of the server's jobs).
 */
export class WebhookDispatcher {
  private store: DeliveryStore;
  private perWebhook = new Map<string, number>();
  private running = new Map<Promise<void>, ClaimedDelivery>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private started = false;
  private pumping = false;

  constructor(private deps: AppDeps) {
    this.store = deliveryStore(deps.sqlite);
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
    await Promise.race([Promise.allSettled([...this.running.keys()]), Bun.sleep(timeoutMs)]);
    for (const d of this.running.values()) this.store.release(d.id, d.attempts, this.deps.clock.now().getTime());
    this.running.clear();
    this.perWebhook.clear();
  }

  /** Nudges the loop (new deliveries were committed, or an attempt finished). */
  wake(): void {
    if (this.started) this.schedule(0);
  }

  /** Sends every due delivery (within the limits) and waits for them; for tests and the CLI. Returns how many attempts ran. */
  async runDue(): Promise<number> {
    let n = 0;
    for (;;) {
      const launched = this.fill();
      n += launched;
      if (!this.running.size) return n;
      await Promise.race(this.running.keys());
    }
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), ms);
  }

  private pump(): void {
    this.timer = null;
    if (!this.started || this.pumping) return;
    this.pumping = true;
    try {
      this.fill();
    } catch (err) {
      this.deps.log.error("webhook claim failed", { err });
    } finally {
      this.pumping = false;
    }
    // at the total cap, finishing attempts wake the loop; polling then only guards against a lost wake-up
    const full = this.running.size >= this.deps.config.webhookConcurrency;
    if (this.started) this.schedule(full ? this.deps.config.jobPollMs : this.nextDelay());
  }

  /** Webhooks already at their in-flight cap. */
  private busy(): string[] {
    const cap = this.deps.config.webhookConcurrencyPerWebhook;
    return [...this.perWebhook].filter(([, n]) => n >= cap).map(([id]) => id);
  }

  /** Claims and launches deliveries until the limits or the due work run out. */
  private fill(): number {
    let launched = 0;
    while (this.running.size < this.deps.config.webhookConcurrency) {
      const d = this.store.claimDue(this.deps.clock.now().getTime(), leaseMs(this.deps), this.busy());
      if (!d) break;
      this.launch(d);
      launched++;
    }
    return launched;
  }

  private launch(d: ClaimedDelivery): void {
    this.perWebhook.set(d.webhookId, (this.perWebhook.get(d.webhookId) ?? 0) + 1);
    const p: Promise<void> = attemptDelivery(this.deps, d)
      .then(
        () => {},
        (err) => this.deps.log.error("webhook attempt failed to record", { deliveryId: d.id, err }),
      )
      .finally(() => {
        this.running.delete(p);
        const left = (this.perWebhook.get(d.webhookId) ?? 1) - 1;
        if (left > 0) this.perWebhook.set(d.webhookId, left);
        else this.perWebhook.delete(d.webhookId);
        // the freed slot goes first to this webhook's own backlog: one index probe, no scan
        if (this.started && this.running.size < this.deps.config.webhookConcurrency) {
          const next = this.store.claimNextOf(d.webhookId, this.deps.clock.now().getTime(), leaseMs(this.deps));
          if (next) {
            this.launch(next);
            return;
          }
        }
        this.wake();
      });
    this.running.set(p, d);
  }

  private nextDelay(): number {
    const poll = this.deps.config.jobPollMs;
    const t = this.store.nextDue(this.busy());
    if (t === null) return poll;
    return Math.max(0, Math.min(poll, t - this.deps.clock.now().getTime()));
  }
}
