import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { dailyApiQuota } from "./daily-quota.ts";
import { lastUsedTracker } from "./last-used.ts";

/**
 * Writes the batched `lastUsedAt` of API keys every 30 seconds (and at shutdown, see services).
 * The daily request counts flush themselves within a second; this is their safety net.
 */
export function apiKeyJobs(deps: AppDeps): PeriodicJob[] {
  return [
    {
      name: "apikeys.flush-last-used",
      schedule: "*/30 * * * * *",
      run: async () => {
        await lastUsedTracker(deps.db).flush();
        await dailyApiQuota(deps.db).flush();
      },
    },
  ];
}

/** Flushes pending `lastUsedAt` values and daily request counts (called when the server stops). */
export async function flushApiKeyUsage(deps: Pick<AppDeps, "db">): Promise<void> {
  await lastUsedTracker(deps.db).flush();
  await dailyApiQuota(deps.db).flush();
}
