import type { Clock } from "../clock.ts";
import type { DB } from "../db/store.ts";
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
export type RealtimeOnlyEvent = "session_qr" | "session_status" | "conversation_updated";
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

/** Runs inside the publishing transaction (e.g. writes webhook delivery rows). Throwing rolls the change back. Returns nothing (no promise) for an event it has nothing to do with. */
export type TransactionalSubscriber = (event: AppEvent) => Promise<void> | void;
/** Runs after the transaction committed (e.g. the WebSocket hub). Never affects the change. */
export type CommittedListener = (event: AppEvent) => void;

/**
 * The one internal publisher every module uses. Events are published inside `db.tx`, so their
 * side effects (outbox rows) commit or roll back with the change that caused them, and
 * listeners hear only about committed changes.
 */
export class EventBus {
  private transactional: TransactionalSubscriber[] = [];
  private listeners = new Set<CommittedListener>();
  /** listeners that also hear the events other nodes of a cluster committed (the WebSocket hub) */
  private clusterListeners = new Set<CommittedListener>();

  constructor(
    private db: DB,
    private clock: Clock,
    private log: Logger,
  ) {}

  /** Adds a subscriber that runs in the publisher's transaction. */
  onPublish(fn: TransactionalSubscriber): void {
    this.transactional.push(fn);
  }

  /**
   * Adds a listener called after commit; returns the unsubscriber. With `fromOtherNodes` it also
   * hears the events committed by the other nodes of a cluster (see deliverFromOtherNode); the
   * modules' own side effects listen to their node's events only.
   */
  subscribe(fn: CommittedListener, opts: { fromOtherNodes?: boolean } = {}): () => void {
    this.listeners.add(fn);
    if (opts.fromOtherNodes) this.clusterListeners.add(fn);
    return () => {
      this.listeners.delete(fn);
      this.clusterListeners.delete(fn);
    };
  }

  /** An event another node of the cluster committed: told to the listeners that asked for them. */
  deliverFromOtherNode(e: AppEvent): void {
    this.tell(this.clusterListeners, e);
  }

  /** Publishes an event; must be called inside `db.tx`. Listeners hear it once the transaction commits. */
  async publish(workspaceId: string, event: EventName, data: Record<string, unknown>): Promise<AppEvent> {
    if (!this.db.inTx) throw new Error(`event ${event} published outside db.tx`);
    const e: AppEvent = { id: Bun.randomUUIDv7(), workspaceId, event, timestamp: this.clock.now().toISOString(), data };
    // a subscriber the event does not concern answers synchronously: no await for it
    for (const sub of this.transactional) {
      const r = sub(e);
      if (r) await r;
    }
    this.db.afterCommit(() => this.notify(e));
    return e;
  }

  private notify(e: AppEvent): void {
    this.tell(this.listeners, e);
  }

  private tell(listeners: Set<CommittedListener>, e: AppEvent): void {
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        this.log.error("event listener failed", { event: e.event, err });
      }
    }
  }
}
