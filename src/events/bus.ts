import type { Database } from "bun:sqlite";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";

/** Events that webhooks can subscribe to (docs/webhooks.md). */
export const WEBHOOK_EVENTS = [
  "message_received",
  "message_sent",
  "message_delivered",
  "message_read",
  "message_failed",
  "campaign_progress",
  "session_connected",
  "session_disconnected",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Dashboard-only real-time events (docs/api.md). */
export type RealtimeOnlyEvent = "session_qr" | "session_status";
export type EventName = WebhookEvent | RealtimeOnlyEvent;

export interface AppEvent {
  /** unique id of this event (UUIDv7) */
  id: string;
  workspaceId: string;
  event: EventName;
  /** ISO 8601 with milliseconds */
  timestamp: string;
  data: Record<string, unknown>;
}

/** Runs inside the publishing transaction (e.g. writes webhook delivery rows). Throwing rolls the change back. */
export type TransactionalSubscriber = (event: AppEvent) => void;
/** Runs after the transaction committed (e.g. the WebSocket hub). Never affects the change. */
export type CommittedListener = (event: AppEvent) => void;

/**
 * The one internal publisher every module uses. Events are published inside `bus.transaction`,
 * so their side effects (outbox rows) commit or roll back with the change that caused them,
 * and listeners hear only about committed changes.
 */
export class EventBus {
  private transactional: TransactionalSubscriber[] = [];
  private listeners = new Set<CommittedListener>();
  private pending: AppEvent[] | null = null;

  constructor(
    private sqlite: Database,
    private clock: Clock,
    private log: Logger,
  ) {}

  /** Adds a subscriber that runs in the publisher's transaction. */
  onPublish(fn: TransactionalSubscriber): void {
    this.transactional.push(fn);
  }

  /** Adds a listener called after commit; returns the unsubscriber. */
  subscribe(fn: CommittedListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Runs `fn` in one SQLite transaction; events it publishes reach listeners after commit. */
  transaction<T>(fn: () => T): T {
    if (this.pending) return fn(); // nested: joins the outer transaction
    this.pending = [];
    let events: AppEvent[];
    let result: T;
    try {
      result = this.sqlite.transaction(fn)();
      events = this.pending;
    } finally {
      this.pending = null;
    }
    for (const e of events) this.notify(e);
    return result;
  }

  /** Publishes an event; must be called inside `transaction`. */
  publish(workspaceId: string, event: EventName, data: Record<string, unknown>): AppEvent {
    if (!this.pending) throw new Error(`event ${event} published outside bus.transaction`);
    const e: AppEvent = { id: Bun.randomUUIDv7(), workspaceId, event, timestamp: this.clock.now().toISOString(), data };
    for (const sub of this.transactional) sub(e);
    this.pending.push(e);
    return e;
  }

  private notify(e: AppEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.log.error("event listener failed", { event: e.event, err });
      }
    }
  }
}
