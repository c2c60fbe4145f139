import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { lastUsedTracker } from "./last-used.ts";

/** Writes the batched `lastUsedAt` of API keys every 30 seconds (and at shutdown, see services). */
export function apiKeyJobs(deps: AppDeps): PeriodicJob[] {
  return [{ name: "apikeys.flush-last-used", schedule: "*/30 * * * * *", run: () => void lastUsedTracker(deps.sqlite).flush() }];
}

/** Flushes pending `lastUsedAt` values (called when the server stops). */
export function flushApiKeyUsage(deps: AppDeps): void {
  lastUsedTracker(deps.sqlite).flush();
}
