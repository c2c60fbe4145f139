import type { CacheStore } from "baileys";

/**
 * A small TTL map with baileys' CacheStore shape. Used for `msgRetryCounterCache`, kept per
 * session outside the socket, so the count of the network's retry requests for a message
 * survives a reconnect (inside the socket it restarted at zero and retries never ended).
 */
export class TtlCache implements CacheStore {
  private entries = new Map<string, { value: unknown; until: number }>();

  constructor(
    private ttlMs = 3_600_000,
    private maxEntries = 10_000,
    private now: () => number = Date.now,
  ) {}

  get<T>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value as T;
  }

  set<T>(key: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { value, until: this.now() + this.ttlMs });
    // oldest first: Map keeps insertion order
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  del(key: string): void {
    this.entries.delete(key);
  }

  flushAll(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
