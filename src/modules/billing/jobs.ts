import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { runLifecycle } from "./subscription.ts";
import { pruneCounters } from "./usage.ts";

/** Billing's periodic jobs (trial end, lapsed periods, counters); the catalogue is seeded at start (seedPlans). */
export function billingJobs(deps: AppDeps): PeriodicJob[] {
  return [
    {
      name: "billing.lifecycle",
      schedule: "* * * * *",
      run: async () => {
        const changed = await runLifecycle(deps);
        if (changed.trialsEnded || changed.pastDue || changed.lapsed) deps.log.info("subscriptions changed", changed);
      },
    },
    { name: "billing.prune-counters", schedule: "41 3 * * *", run: async () => void (await pruneCounters(deps.db, deps.clock.now())) },
  ];
}
