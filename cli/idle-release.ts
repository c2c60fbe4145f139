import type { Logger } from "../src/log.ts";

/**
 * A server that has worked and gone quiet gives back what the work left behind: the JIT's
 * compiled code of the hot paths, the garbage of the last requests and the allocator's free
 * pages (a full collection, then `Bun.shrink()`, as `serve` does once after its start), once
 * per stretch of work. Code is compiled again when the work comes back (milliseconds at the
 * rates where it pays); the release itself takes 4–10 ms of a quiet event loop. Measured on the
 * binary (issue 13; 3 s of /health and 3 s of API-key GETs at full load, then 45 s idle, 3
 * interleaved rounds): anonymous memory 18.1–18.6 → 14.7–14.9 MiB, RSS 67.3–67.8 → 63.6–64.0 MiB.
 *
 * It watches the process's own CPU time, so every kind of work counts (requests, sends, webhook
 * deliveries, jobs) without a hook in any of them. A trickle of work under the quiet share never
 * counts as work: it grows nothing worth a collection.
 */
export interface IdleReleaseOptions {
  /** how often the process's CPU time is read */
  windowMs: number;
  /** a window with more CPU time than this share of one core is work (an idle server's polls use ≈0.4 %) */
  quietShare: number;
  /** quiet windows in a row after work before the release */
  quietWindows: number;
}

export const IDLE_RELEASE: IdleReleaseOptions = {
  windowMs: 10_000,
  quietShare: 0.02,
  quietWindows: 3,
};

/** What the policy reads and does; the process's own in `releaseWhenIdle`, fakes in tests. */
export interface IdleProbe {
  /** CPU time of the process so far (user + system), µs */
  cpuMicros(): number;
  rssBytes(): number;
  release(): void;
}

/** The decision, one window at a time. */
export class IdleRelease {
  private lastCpu: number;
  private quiet = 0;
  /** a window of work since the last release (the start has its own) */
  private worked = false;

  constructor(
    private probe: IdleProbe,
    private o: IdleReleaseOptions = IDLE_RELEASE,
  ) {
    this.lastCpu = probe.cpuMicros();
  }

  /** One window has passed. Returns the resident size before, when it released. */
  tick(): { before: number } | null {
    const cpu = this.probe.cpuMicros();
    const used = cpu - this.lastCpu;
    this.lastCpu = cpu;
    if (used > this.o.windowMs * 1000 * this.o.quietShare) {
      this.worked = true;
      this.quiet = 0;
      return null;
    }
    if (!this.worked || ++this.quiet < this.o.quietWindows) return null;
    const before = this.probe.rssBytes();
    this.probe.release();
    this.worked = false;
    this.quiet = 0;
    this.lastCpu = this.probe.cpuMicros(); // the release's own CPU time is not work
    return { before };
  }
}

/**
 * Gives back what the process no longer uses: a full collection, then `Bun.shrink()` (drops
 * compiled code, collects, returns the allocator's free pages). `serve` calls it once after its
 * start and the idle release after each stretch of work.
 */
export function releaseMemory(): void {
  Bun.gc(true); // a collection still running (a concurrent one) would make the shrink keep all code
  Bun.shrink();
}

/** The running process: CPU from `process.cpuUsage`, resident size from `process.memoryUsage.rss`. */
export const processProbe: IdleProbe = {
  cpuMicros() {
    const u = process.cpuUsage();
    return u.user + u.system;
  },
  rssBytes: () => process.memoryUsage.rss(),
  release: releaseMemory,
};

const MiB = (b: number) => Math.round((b / 1048576) * 10) / 10;

/** Starts the idle release for this process, for its life (an unreferenced timer). */
export function releaseWhenIdle(log: Logger, o: IdleReleaseOptions = IDLE_RELEASE): void {
  const policy = new IdleRelease(processProbe, o);
  setInterval(() => {
    const r = policy.tick();
    if (r) log.debug("memory released after idle", { rssMiB: MiB(r.before) });
  }, o.windowMs).unref();
}
