/** Reconnect timing of one session: exponential, jittered, capped, reset by a stable connection. */
export interface BackoffOptions {
  /** delay before the first retry */
  baseMs: number;
  /** no delay grows past this */
  maxMs: number;
  /**
   * retries in a row of a linked session before giving up (the session ends `disconnected`);
   * default: never, so a linked session comes back after any outage, one attempt per `maxMs`
   * (with jitter) once the delay reached the cap
   */
  maxAttempts: number;
  /** retries while linking a new device: an unreachable network should fail the connect call soon */
  linkingMaxAttempts: number;
  /** a connection that stayed open this long resets the count */
  stableMs: number;
  /** 0..0.5: the delay is drawn from [d * (1 - jitter), d]; at most 0.5 keeps each delay below the cap at least the previous one */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, maxMs: 60_000, maxAttempts: Number.POSITIVE_INFINITY, linkingMaxAttempts: 2, stableMs: 60_000, jitter: 0.3 };

/**
 * One policy per session, so a network outage that drops every session at once spreads the
 * retries out (jitter) and, once at the cap, makes one attempt per `maxMs` per session (no
 * reconnect storm); linking a new device stops after `linkingMaxAttempts`.
 */
export class ReconnectPolicy {
  private attempts = 0;
  private openedAt: number | null = null;
  readonly opts: BackoffOptions;

  constructor(
    opts: Partial<BackoffOptions> = {},
    private random: () => number = Math.random,
  ) {
    this.opts = { ...DEFAULT_BACKOFF, ...opts };
    if (this.opts.jitter < 0 || this.opts.jitter > 0.5) throw new Error("jitter must be between 0 and 0.5");
  }

  /** Retries made since the last reset. */
  get attempt(): number {
    return this.attempts;
  }

  /** The delay before the next retry, or null when it is time to give up (`linking`: the shorter budget). */
  next(linking = false): number | null {
    if (this.attempts >= (linking ? this.opts.linkingMaxAttempts : this.opts.maxAttempts)) return null;
    // the exponent stops growing long before it could overflow: the cap applies anyway
    const ceiling = Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** Math.min(this.attempts, 40));
    this.attempts++;
    return Math.round(ceiling * (1 - this.opts.jitter * this.random()));
  }

  /** The connection opened. */
  opened(now: number): void {
    this.openedAt = now;
  }

  /** The connection closed: if it had been stable, the next drop starts again from `baseMs`. */
  closed(now: number): void {
    if (this.openedAt !== null && now - this.openedAt >= this.opts.stableMs) this.attempts = 0;
    this.openedAt = null;
  }

  /** A fresh start (the user asked to connect). */
  reset(): void {
    this.attempts = 0;
    this.openedAt = null;
  }
}

/**
 * Counts events in a sliding window: another client taking the link over (440) is answered by
 * reconnecting, but two clients that keep replacing each other must stop after a few rounds.
 */
export class LoopGuard {
  private times: number[] = [];

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Records one event at `now`; false when it is one too many for the window. */
  allow(now: number): boolean {
    this.times = this.times.filter((t) => now - t < this.windowMs);
    if (this.times.length >= this.max) return false;
    this.times.push(now);
    return true;
  }
}
