import type { CampaignRow, RecipientRow } from "./repo.ts";
import type { WAITING_CODES } from "./pacing.ts";

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** Why a running campaign waits (computed when it is read: see waiting.ts). */
export interface WaitingReason {
  code: (typeof WAITING_CODES)[number];
  message: string;
  /** campaign messages each number may send today (warm-up or daily cap); null for the other codes */
  allowance: number | null;
}

/** API shape of a campaign (docs/contacts-and-campaigns.md). */
export function campaignView(c: CampaignRow, waitingReason: WaitingReason | null = null) {
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    pausedReason: c.pausedReason,
    sessionIds: c.sessionIds,
    message: c.message,
    audience: c.audience,
    schedule: c.schedule ?? null,
    pacing: c.pacing,
    stats: { total: c.total, pending: c.pending, sent: c.sent, delivered: c.delivered, read: c.read, failed: c.failed, skipped: c.skipped },
    /** running, but every session waits (daily caps, quiet hours) until then */
    waitingUntil: c.status === "running" ? iso(c.waitingUntil) : null,
    /** why it waits: quiet hours, warm-up (with today's allowance), the daily cap, or a session reconnecting */
    waitingReason,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
    startedAt: iso(c.startedAt),
    completedAt: iso(c.completedAt),
  };
}

/** API shape of a recipient (docs/contacts-and-campaigns.md). */
export function recipientView(r: RecipientRow) {
  return {
    id: r.id,
    contactId: r.contactId,
    phone: r.phone,
    status: r.status,
    skippedReason: r.skippedReason,
    messageId: r.messageId,
    sessionId: r.sessionId,
    error: r.errorCode ? { code: r.errorCode, message: r.errorMessage ?? "" } : null,
    sentAt: iso(r.sentAt),
  };
}
