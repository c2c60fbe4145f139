import type { DB } from "../../db/store.ts";
import { campaignSends } from "../metrics/counters.ts";

type Outcome = "sent" | "failed" | "skipped";

/**
 * Counts campaign outcomes in `parley_campaign_sends_total` once their change is committed: the
 * change may be made inside a transaction that still rolls back, so the count waits for the
 * commit (`db.afterCommit`: at once outside a transaction, dropped on rollback).
 */
function countWhenCommitted(db: DB, outcome: Outcome, n: number): void {
  if (n <= 0) return;
  db.afterCommit(() => campaignSends.inc({ outcome }, n));
}

/** One recipient's outcome (handed to the network, failed, or skipped as it came up). */
export function countCampaignSend(db: DB, outcome: Outcome): void {
  countWhenCommitted(db, outcome, 1);
}

/** Recipients skipped when the audience was frozen (opted out, duplicates). */
export function countSkippedAtStart(db: DB, n: number): void {
  countWhenCommitted(db, "skipped", n);
}
