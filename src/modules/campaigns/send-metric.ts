import type { Database } from "bun:sqlite";
import { campaignSends } from "../metrics/counters.ts";

type Outcome = "sent" | "failed" | "skipped";

/** The recipient statuses that mean an outcome was committed (a sent message may be delivered or read by then). */
const REACHED: Record<Outcome, readonly string[]> = {
  sent: ["sent", "delivered", "read"],
  failed: ["failed"],
  skipped: ["skipped"],
};

/**
 * Counts campaign outcomes in `parley_campaign_sends_total` once their change is committed.
 * The change is made inside a synchronous SQLite transaction that may still roll back; a
 * microtask runs after that transaction has ended either way, and counts only when
 * `committed()` (a primary-key read) finds the change stored, so a rolled-back one is not counted.
 */
function countWhenCommitted(outcome: Outcome, n: number, committed: () => boolean): void {
  if (n <= 0) return;
  queueMicrotask(() => {
    try {
      if (committed()) campaignSends.inc({ outcome }, n);
    } catch {
      // the database closed meanwhile (shutdown): a sample less, nothing else
    }
  });
}

/** One recipient's outcome (handed to the network, failed, or skipped as it came up). */
export function countCampaignSend(sqlite: Database, recipientId: string, outcome: Outcome): void {
  countWhenCommitted(outcome, 1, () => {
    const row = sqlite.query("SELECT status FROM campaign_recipients WHERE id = ?").get(recipientId) as { status: string } | null;
    return row !== null && REACHED[outcome].includes(row.status);
  });
}

/** Recipients skipped when the audience was frozen (opted out, duplicates): counted when the campaign's counter shows them. */
export function countSkippedAtStart(sqlite: Database, campaignId: string, skippedAfter: number, n: number): void {
  countWhenCommitted("skipped", n, () => {
    const row = sqlite.query("SELECT skipped FROM campaigns WHERE id = ?").get(campaignId) as { skipped: number } | null;
    return row !== null && row.skipped >= skippedAfter;
  });
}
