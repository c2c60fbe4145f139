import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { dailyApiQuota } from "./daily-quota.ts";
import { lastUsedTracker } from "./last-used.ts";
import { writeHealth } from "../../ops/write-health.ts";

/**
 * Writes the batched `lastUsedAt` of API keys every 30 seconds (and at shutdown, see services).
 * The daily request counts flush themselves within a second; this is their safety net.
 */
export function apiKeyJobs(deps: AppDeps): PeriodicJob[] {
  return [
    {
      name: "apikeys.flush-last-used",
      schedule: "*/30 * * * * *",
      run: () => flushApiKeyUsage(deps),
    },
  ];
}

/** Flushes pending `lastUsedAt` values and daily request counts (called when the server stops). */
export function flushApiKeyUsage(deps: AppDeps): void {
  const health = writeHealth(deps.sqlite);
  try {
    lastUsedTracker(deps.sqlite).flush();
    dailyApiQuota(deps.sqlite).flush();
    health.ok("API key usage flush", deps.log);
  } catch (err) {
    // a full disk: the values stay in memory for the next flush
    if (!health.failed("API key usage flush", err, deps.log)) throw err;
  }
}
