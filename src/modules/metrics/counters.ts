import type { Counter, Histogram } from "prom-client";

// Process-wide instruments that other modules increment as things happen. One Parley server runs
// per process (the data-dir lock), so these are that server's; they start at zero with the
// process, as Prometheus counters do. They belong to no registry here: each app's /metrics
// registry adds them (src/modules/metrics/registry.ts). prom-client is loaded on the first use
// (a scrape registry or an observation), not at start: a server without a metrics token that
// sends no webhook never needs it (cold start, issue 13).

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface Instruments {
  /** HTTP requests by method, route pattern and status, with their durations: the only per-request cost is one observe. */
  httpDuration: Histogram<"method" | "route" | "status">;
  /** Webhook delivery attempts by outcome (success, retrying, failed), with the receiver's latency. */
  webhookAttempts: Histogram<"outcome">;
  /** Messages as they change status, by direction: outbound sent/delivered/read/failed, inbound received. */
  messageTransitions: Counter<"direction" | "status">;
  /** Campaign messages handed to the network, by outcome (sent, failed, skipped). */
  campaignSends: Counter<"outcome">;
  /** Inbound messages that arrived but could not be decrypted (a placeholder was stored; the network asked to send them again). */
  undecryptable: Counter;
  /** Real-time sockets the server closed or refused, by reason (slow: too far behind; per_user_cap: one too many). */
  realtimeClosed: Counter<"reason">;
  /** Events a real-time socket did not get because it was too far behind (it was closed, its client reloads). */
  realtimeDropped: Counter;
}

let made: Instruments | undefined;

/** The process-wide instruments, created (and prom-client loaded, synchronously) on the first call. */
export function instruments(): Instruments {
  if (made) return made;
  const { Counter, Histogram } = require("prom-client") as typeof import("prom-client");
  made = {
    httpDuration: new Histogram({
      name: "parley_http_request_duration_seconds",
      help: "HTTP requests by method, route and status, with their duration",
      labelNames: ["method", "route", "status"] as const,
      buckets: SECONDS,
      registers: [],
    }),
    webhookAttempts: new Histogram({
      name: "parley_webhook_attempt_duration_seconds",
      help: "Webhook delivery attempts by outcome, with the time the receiver took",
      labelNames: ["outcome"] as const,
      buckets: SECONDS,
      registers: [],
    }),
    messageTransitions: new Counter({
      name: "parley_messages_total",
      help: "Message status changes by direction and status (from the event bus)",
      labelNames: ["direction", "status"] as const,
      registers: [],
    }),
    campaignSends: new Counter({
      name: "parley_campaign_sends_total",
      help: "Campaign sends by outcome",
      labelNames: ["outcome"] as const,
      registers: [],
    }),
    undecryptable: new Counter({
      name: "parley_inbound_undecryptable_total",
      help: "Inbound messages that could not be decrypted on this device (a placeholder is kept; the network is asked to send them again)",
      registers: [],
    }),
    realtimeClosed: new Counter({
      name: "parley_realtime_sockets_closed_total",
      help: "Real-time WebSockets the server closed or refused, by reason (slow, per_user_cap)",
      labelNames: ["reason"] as const,
      registers: [],
    }),
    realtimeDropped: new Counter({
      name: "parley_realtime_events_dropped_total",
      help: "Events not delivered to a real-time WebSocket that was too far behind (closed with 4009)",
      registers: [],
    }),
  };
  return made;
}

/**
 * Campaign messages handed to the network. The campaigns module calls
 * `campaignSends.inc({ outcome: "sent" })` (or "failed", "skipped") once each recipient's
 * outcome is committed (campaigns/send-metric.ts).
 */
export const campaignSends = {
  inc(labels: { outcome: string }, value?: number): void {
    instruments().campaignSends.inc(labels, value);
  },
};

/** Records one finished webhook attempt (called by the webhooks module after its outcome is stored). */
export function observeWebhookAttempt(status: string, durationMs: number | null | undefined): void {
  instruments().webhookAttempts.observe({ outcome: status }, Math.max(0, durationMs ?? 0) / 1000);
}
