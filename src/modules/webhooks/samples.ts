import type { WebhookEvent } from "../../events/bus.ts";

const SESSION = "01900000-0000-7000-8000-000000000001";
const MESSAGE = "01900000-0000-7000-8000-000000000002";
const CAMPAIGN = "01900000-0000-7000-8000-000000000003";

/**
 * Sample `data` of each event for test deliveries, in the shapes of docs/webhooks.md:
 * exactly the keys the real events carry (src/modules/messages/events.ts, the session manager).
 */
export function sampleData(event: WebhookEvent, at: Date): Record<string, unknown> {
  const iso = at.toISOString();
  switch (event) {
    case "message_received":
      return {
        sessionId: SESSION,
        from: "919800000001",
        messageId: MESSAGE,
        type: "text",
        text: "Hello from Parley (test delivery)",
        content: "Hello from Parley (test delivery)",
        mediaUrl: null,
        mediaId: null,
        mimeType: null,
        filename: null,
        pushName: "Parley Test",
        timestamp: iso,
      };
    case "message_sent":
      return { sessionId: SESSION, to: "919800000001", messageId: MESSAGE };
    case "message_delivered":
      return { sessionId: SESSION, messageId: MESSAGE, deliveredAt: iso };
    case "message_read":
      return { sessionId: SESSION, messageId: MESSAGE, readAt: iso };
    case "message_failed":
      return { sessionId: SESSION, messageId: MESSAGE, to: "919800000001", error: { code: "network_error", message: "Sample failure (test delivery)" } };
    case "campaign_progress":
      // the counters are exclusive (each recipient is in one status) and add up to total, as in the real event
      return { campaignId: CAMPAIGN, status: "running", pausedReason: null, total: 100, pending: 50, sent: 10, delivered: 20, read: 15, failed: 2, skipped: 3 };
    case "session_connected":
      return { sessionId: SESSION, phone: "+919800000000", status: "connected" };
    case "session_disconnected":
      return { sessionId: SESSION, reason: "logged_out" };
  }
}
