import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";

type Deps = Pick<AppDeps, "lastUsed" | "apiQuota" | "writeHealth" | "log">;

/**
 * Writes the batched `lastUsedAt` of API keys every 30 seconds (and when the runtime stops).
 * The daily request counts flush themselves within a second; this is their safety net.
 */
export function apiKeyJobs(deps: Deps): PeriodicJob[] {
  return [{ name: "apikeys.flush-last-used", schedule: "*/30 * * * * *", run: () => flushApiKeyUsage(deps) }];
}

/** Flushes pending `lastUsedAt` values and daily request counts (the runtime calls it when it stops). */
export async function flushApiKeyUsage(deps: Deps): Promise<void> {
  try {
    await deps.lastUsed.flush();
    await deps.apiQuota.flush();
    deps.writeHealth.ok("API key usage flush", deps.log);
  } catch (err) {
    // a full disk: the values stay in memory for the next flush
    if (!deps.writeHealth.failed("API key usage flush", err, deps.log)) throw err;
  }
}
