import type { DB } from "../../db/store.ts";
import { incrementCounter } from "../billing/usage.ts";
import type { ApiQuota } from "./daily-quota.ts";

/**
 * The daily API-request quota on PostgreSQL, where the nodes of a cluster answer API-key
 * requests side by side: each request takes its unit from the workspace's `usage_counters` row
 * with one statement that counts only while the row is below the limit (the same statement as
 * every windowed quota), so the count is exact across nodes, the race at the last unit
 * included. Nothing waits in memory: `pendingOf` is 0 and `flush` has nothing to write.
 */
export class SharedDailyApiQuota implements ApiQuota {
  constructor(private db: DB) {}

  take(workspaceId: string, at: Date, limit: number): Promise<number | null> {
    return incrementCounter(this.db, workspaceId, "apiRequestsPerDay", at, limit, 1);
  }

  pendingOf(): number {
    return 0;
  }

  async flush(): Promise<void> {}
}
