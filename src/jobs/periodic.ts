import { Cron } from "croner";
import type { Logger } from "../log.ts";

/** A periodic job declared as data; modules export these and the server starts them all. */
export interface PeriodicJob {
  name: string;
  /** Cron pattern (seconds optional), e.g. "0 * * * *" or "*\/30 * * * * *", read in UTC like the usage windows (see startPeriodic). */
  schedule: string;
  run(): Promise<void> | void;
}

/** Starts every periodic job (no overlap of one job with itself) and returns the stopper. */
export function startPeriodic(list: PeriodicJob[], log: Logger): { stop(): void } {
  const names = new Set<string>();
  const crons = list.map((job) => {
    if (names.has(job.name)) throw new Error(`periodic job ${job.name} declared twice`);
    names.add(job.name);
    // utcOffset 0: the patterns are read in UTC. In the local time zone, croner's first schedule
    // would load ICU's time-zone data, ~3.5 MB resident for the life of the process (issue 13),
    // to place a few housekeeping runs; the usage counters they prune are UTC windows anyway
    return new Cron(job.schedule, { name: job.name, protect: true, utcOffset: 0, catch: (err) => log.error("periodic job failed", { job: job.name, err }) }, async () => {
      const started = performance.now();
      await job.run();
      log.debug("periodic job ran", { job: job.name, durationMs: Math.round(performance.now() - started) });
    });
  });
  return {
    stop() {
      for (const c of crons) c.stop();
    },
  };
}
