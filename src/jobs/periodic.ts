import type { Logger } from "../log.ts";
import { nextRun, parseCron } from "./cron.ts";

/** A periodic job declared as data; modules export these and the server starts them all. */
export interface PeriodicJob {
  name: string;
  /** `[second] minute hour * * *` in UTC, each field `*`, `*\/n` or a number, e.g. "0 * * * *" or "*\/30 * * * * *" (src/jobs/cron.ts). */
  schedule: string;
  run(): Promise<void> | void;
}

/** Timers wake at least this often and look at the clock again (a long timer drifts when the machine sleeps). */
const MAX_WAIT_MS = 30_000;

/** Starts every periodic job (no overlap of one job with itself) and returns the stopper. */
export function startPeriodic(list: PeriodicJob[], log: Logger): { stop(): void } {
  const names = new Set<string>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  let stopped = false;
  for (const job of list) {
    if (names.has(job.name)) throw new Error(`periodic job ${job.name} declared twice`);
    names.add(job.name);
    const times = parseCron(job.schedule);
    let running = false;
    const run = async () => {
      // a run still going when the next one is due: that one is skipped
      if (running) return;
      running = true;
      const started = performance.now();
      try {
        await job.run();
        log.debug("periodic job ran", { job: job.name, durationMs: Math.round(performance.now() - started) });
      } catch (err) {
        log.error("periodic job failed", { job: job.name, err });
      } finally {
        running = false;
      }
    };
    const arm = (due: number) => {
      if (stopped) return;
      const wait = due - Date.now();
      if (wait <= 0) {
        void run();
        return arm(nextRun(times, Date.now()));
      }
      timers.set(job.name, setTimeout(() => arm(due), Math.min(wait, MAX_WAIT_MS)));
    };
    arm(nextRun(times, Date.now()));
  }
  return {
    stop() {
      stopped = true;
      for (const t of timers.values()) clearTimeout(t);
    },
  };
}
