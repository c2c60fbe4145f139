import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { seedPlans } from "./plans.ts";
import { runLifecycle } from "./subscription.ts";
import { pruneCounters } from "./usage.ts";

/** Seeds the catalogue and declares billing's periodic jobs (trial end, lapsed periods, counters). */
export function billingJobs(deps: AppDeps): PeriodicJob[] {
  seedPlans(deps.sqlite, deps.clock.now().getTime());
  return [
    {
      name: "billing.lifecycle",
      schedule: "* * * * *",
      run: () => {
        const changed = runLifecycle(deps);
        if (changed.trialsEnded || changed.pastDue || changed.lapsed) deps.log.info("subscriptions changed", changed);
      },
    },
    { name: "billing.prune-counters", schedule: "41 3 * * *", run: () => void pruneCounters(deps.sqlite, deps.clock.now()) },
  ];
}
