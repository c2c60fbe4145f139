import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";

/**
 * Writes the batched `lastUsedAt` of API keys every 30 seconds (and when the runtime stops).
 * The daily request counts flush themselves within a second; this is their safety net.
 */
export function apiKeyJobs(deps: Pick<AppDeps, "lastUsed" | "apiQuota">): PeriodicJob[] {
  return [{ name: "apikeys.flush-last-used", schedule: "*/30 * * * * *", run: () => flushApiKeyUsage(deps) }];
}

/** Flushes pending `lastUsedAt` values and daily request counts (the runtime calls it when it stops). */
export async function flushApiKeyUsage(deps: Pick<AppDeps, "lastUsed" | "apiQuota">): Promise<void> {
  await deps.lastUsed.flush();
  await deps.apiQuota.flush();
}
