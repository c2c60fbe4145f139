import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { effectivePlanId, effectivePlanIdSql, SUBSCRIPTION_STATUSES } from "../../../src/modules/billing/quota.ts";

// The API-key guard reads the limits in force in SQL (one statement a request): its
// expression must name the same plan as effectivePlanId for every status.
test("effectivePlanIdSql names the plan effectivePlanId names, for every status", () => {
  const db = new Database(":memory:");
  const stmt = db.prepare(`SELECT ${effectivePlanIdSql("?1", "?2")} AS plan`);
  for (const status of SUBSCRIPTION_STATUSES) {
    for (const planId of ["free", "starter", "growth", "pro", "custom"]) {
      expect({ status, planId, plan: (stmt.get(status, planId) as { plan: string }).plan }).toEqual({ status, planId, plan: effectivePlanId(status, planId) });
    }
  }
});
