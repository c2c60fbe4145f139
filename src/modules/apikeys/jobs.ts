import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";

type Deps = Pick<AppDeps, "lastUsed" | "apiQuota" | "writeHealth" | "log">;

/**
 * Writes the batched `lastUsedAt` of API keys every 30 seconds (and when the runtime stops).
 * The daily request counts flush themselves within a second; this is their safety net.
 */
export function apiKeyJobs(deps: Deps): PeriodicJob[] {
  return [{ name: "apikeys.flush-last-used", schedule: "*/30 * * * * *", run: () => flushApiKeyUsage(deps, false) }];
}

/**
 * Flushes pending `lastUsedAt` values and daily request counts. `final` (the default) when the
 * runtime stops: the daily quota's unspent blocks go back to their rows too.
 */
export async function flushApiKeyUsage(deps: Deps, final = true): Promise<void> {
  try {
    await deps.lastUsed.flush();
    await deps.apiQuota.flush(final);
    deps.writeHealth.ok("API key usage flush", deps.log);
  } catch (err) {
    // a full disk: the values stay in memory for the next flush
    if (!deps.writeHealth.failed("API key usage flush", err, deps.log)) throw err;
  }
}
