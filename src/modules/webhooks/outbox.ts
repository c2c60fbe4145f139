import type { AppDeps } from "../../deps.ts";
import { groupCollect, groupOnce, onGroupWarm } from "../../db/group-memo.ts";
import { WEBHOOK_EVENTS, type AppEvent } from "../../events/bus.ts";
import { MAX_PAYLOAD_BYTES } from "./deliver.ts";

const SUBSCRIBABLE = new Set<string>(WEBHOOK_EVENTS);
/** the events an inbound message publishes */
const INBOUND_EVENTS = ["conversation_updated", "message_received"].filter((e) => SUBSCRIBABLE.has(e));

/** The JSON body of every delivery of an event (docs/webhooks.md), built once. */
export function eventPayload(e: Pick<AppEvent, "event" | "timestamp" | "data">): string {
  return JSON.stringify({ event: e.event, timestamp: e.timestamp, data: e.data });
}

/**
 * The transactional outbox: subscribed to the bus, it runs inside the publisher's
 * transaction and writes one delivery row per active subscribed webhook, so the rows exist
 * exactly when the change that caused the event is committed (in a group commit of inbound
 * messages: the group's rows in one statement at its end, before its commit). `onCommitted`
 * wakes the sender once rows it may send are committed.
 */
export function registerOutbox(deps: AppDeps, onCommitted: () => void): void {
  // SQLite: `? IN (SELECT value FROM json_each(events))`, not `EXISTS (SELECT 1 FROM json_each(events)
  // WHERE value = ?)`: the same rows, but SQLite ran the EXISTS form at ≈ 11–15 µs a call even for
  // a workspace without webhooks, the IN form at ≈ 0.7 µs (3–6 µs with webhooks), and this read
  // runs for every event published
  const subscribers = deps.db.prepare<{ id: string }>(
    deps.db.engine === "postgres"
      ? `SELECT id FROM webhooks WHERE workspace_id = ? AND is_active = 1 AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(events::jsonb) AS e(value) WHERE e.value = ?)`
      : `SELECT id FROM webhooks WHERE workspace_id = ? AND is_active = 1 AND ? IN (SELECT value FROM json_each(events))`,
  );
  const insert = deps.db.prepare(
    `INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, is_test, status, attempts, next_attempt_at, error, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0, ?, ?, ?, ?)`,
  );
  // the rows of a group commit (groupCollect): one statement at the group's end
  const insertMany = deps.db.prepare(
    deps.db.engine === "postgres"
      ? `INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, is_test, status, attempts, next_attempt_at, error, created_at, updated_at)
         SELECT r->>0, r->>1, r->>2, r->>3, r->>4, r->>5, 0, 'pending', 0, (r->>6)::bigint, NULL, (r->>7)::bigint, (r->>7)::bigint FROM jsonb_array_elements(?::jsonb) AS x(r)`
      : `INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, is_test, status, attempts, next_attempt_at, error, created_at, updated_at)
         SELECT r->>0, r->>1, r->>2, r->>3, r->>4, r->>5, 0, 'pending', 0, r->>6, NULL, r->>7, r->>7 FROM (SELECT value AS r FROM json_each(?))`,
  );
  type Row = [id: string, workspaceId: string, webhookId: string, eventId: string, event: string, payload: string, firstAt: number, now: number];
  const writeMany = async (rows: Row[]) => void (await insertMany.run(JSON.stringify(rows)));
  const subscribersOf = (workspaceId: string, event: string) => groupOnce(`webhooks.subscribers\u0000${workspaceId}\u0000${event}`, () => subscribers.all(workspaceId, event));
  // an inbound group's events: read at its start with its other reads (PostgreSQL)
  onGroupWarm(deps.db, (workspaceId) => Promise.all(INBOUND_EVENTS.map((event) => subscribersOf(workspaceId, event))));
  deps.bus.onPublish(async (e) => {
    if (!SUBSCRIBABLE.has(e.event)) return; // session_qr, session_status: dashboard only
    // once per group commit of inbound messages (nothing there changes webhooks)
    const hooks = await subscribersOf(e.workspaceId, e.event);
    if (!hooks.length) return;
    const payload = eventPayload(e);
    const size = Buffer.byteLength(payload);
    const now = deps.clock.now().getTime();
    const firstAt = now + (deps.config.webhookRetrySchedule[0] ?? 0) * 1000;
    // the dispatcher is woken once the rows are committed (an event no webhook takes wakes nothing)
    if (size <= MAX_PAYLOAD_BYTES) deps.db.afterCommit(onCommitted);
    for (const h of hooks) {
      if (size > MAX_PAYLOAD_BYTES) {
        // never silently dropped: the history shows it, failed, with the reason
        await insert.run(Bun.randomUUIDv7(), e.workspaceId, h.id, e.id, e.event, "", "failed", null, `payload of ${size} bytes exceeds the ${MAX_PAYLOAD_BYTES}-byte cap`, now, now);
      } else {
        const row: Row = [Bun.randomUUIDv7(), e.workspaceId, h.id, e.id, e.event, payload, firstAt, now];
        if (!groupCollect("webhooks.deliveries", row, writeMany)) await insert.run(row[0], row[1], row[2], row[3], row[4], row[5], "pending", firstAt, null, now, now);
      }
    }
  });
}
