import type { Clock } from "../../clock.ts";
import { errors } from "../../errors.ts";

interface Window {
  count: number;
  resetAt: number;
}

const MAX_KEYS = 100_000;

/**
 * Fixed-window counters kept in memory (the auth throttles, docs/authentication.md): they reset on restart, which only
 * forgives a few attempts; the OTP send limits that matter across restarts live in rows.
 */
export class WindowCounter {
  private windows = new Map<string, Window>();

  constructor(
    private clock: Clock,
    private limit: number,
    private windowMs: number,
  ) {}

  /** Counts one request; throws 429 RATE_LIMITED with Retry-After once over the limit. */
  hit(key: string, message = "Too many requests; retry later"): void {
    const w = this.current(key, true)!;
    w.count++;
    if (w.count > this.limit) throw errors.rateLimited((w.resetAt - this.now()) / 1000, message);
  }

  /** Throws 429 when the key already used up its window (without counting). */
  check(key: string, message = "Too many attempts; retry later"): void {
    const w = this.current(key, false);
    if (w && w.count >= this.limit) throw errors.rateLimited((w.resetAt - this.now()) / 1000, message);
  }

  /** Counts one event (a failed login) without refusing. */
  add(key: string): void {
    this.current(key, true)!.count++;
  }

  /** Forgets a key (a successful login clears its failures). */
  clear(key: string): void {
    this.windows.delete(key);
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  private current(key: string, create: boolean): Window | undefined {
    const now = this.now();
    let w = this.windows.get(key);
    if (w && w.resetAt <= now) {
      this.windows.delete(key);
      w = undefined;
    }
    if (!w && create) {
      if (this.windows.size >= MAX_KEYS) this.sweep(now);
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    return w;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    // a flood of distinct keys: forget the oldest half rather than grow without bound
    if (this.windows.size >= MAX_KEYS) {
      let n = this.windows.size / 2;
      for (const k of this.windows.keys()) {
        if (n-- <= 0) break;
        this.windows.delete(k);
      }
    }
  }
}

/** The client's IP: the socket's, or the last X-Forwarded-For hop when the operator trusts a proxy. */
export function clientIp(
  request: Request,
  server: { requestIP(r: Request): { address: string } | null } | null | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    // The trusted proxy appends the address it saw; everything left of it came from the client
    // and can be anything, so only the rightmost entry identifies the client.
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "local";
}
