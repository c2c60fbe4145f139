import type { Histogram } from "prom-client";

/** How often the sampler looks: a block of B ms shows as a lag between B - 10 and B ms. */
export const LAG_SAMPLE_MS = 10;

/** Buckets in seconds: fine below 50 ms (the goal: nothing holds the loop longer), coarse above. */
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

let lag: Histogram | undefined;

/**
 * The event-loop lag histogram (`parley_event_loop_lag_seconds`), sampled from its first call for
 * the life of the process: a timer asks to run every 10 ms and observes how late it ran. Anything
 * that holds the loop (a long statement, a big JSON, a synchronous loop) delays the timer by as
 * much, so every request waiting then waited as long. The timer is unref'd (it never keeps the
 * process alive) and one per process, whatever the number of apps.
 */
export function loopLagHistogram(): Histogram {
  if (lag) return lag;
  const { Histogram } = require("prom-client") as typeof import("prom-client");
  const h = new Histogram({
    name: "parley_event_loop_lag_seconds",
    help: "How late a 10 ms timer ran: the time the event loop was held by other work",
    buckets: LAG_BUCKETS,
    registers: [],
  });
  lag = h;
  let expected = performance.now() + LAG_SAMPLE_MS;
  const tick = () => {
    const now = performance.now();
    h.observe(Math.max(0, now - expected) / 1000);
    expected = now + LAG_SAMPLE_MS;
    setTimeout(tick, LAG_SAMPLE_MS).unref();
  };
  setTimeout(tick, LAG_SAMPLE_MS).unref();
  return h;
}
