import postgres from "postgres";
import type { Clock } from "../clock.ts";
import { groupCollect } from "../db/group-memo.ts";
import { READS_CHANNEL, readCache } from "../db/read-cache.ts";
import type { DB, Statement } from "../db/store.ts";
import type { Logger } from "../log.ts";
import type { AppEvent, EventBus } from "./bus.ts";

/** The NOTIFY channel of the cluster's events. */
export const EVENTS_CHANNEL = "parley_events";
/** An event whose JSON is longer than this is announced by its number only (NOTIFY payloads stop at 8,000 bytes). */
export const INLINE_MAX_BYTES = 7_000;
/** Rows older than this are pruned: a node cut off from the database longer catches up from the oldest row left. */
export const KEEP_MS = 2 * 60_000;
/** A lost listening connection is tried again after this long, doubling up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;
/** rows read at a time when catching up */
const CATCH_UP_BATCH = 500;

interface Announcement {
  /** the event's number */
  s: number;
  /** the runtime that committed it */
  o: string;
  /** the event itself, when small */
  e?: AppEvent;
}

interface EventRow {
  seq: number;
  origin: string;
  body: string;
}

/**
 * Events across the nodes of a PostgreSQL cluster: each node's WebSocket clients get their
 * workspace's events whichever node committed them.
 *
 * - In the publishing transaction (a bus subscriber) the event is written to `cluster_events`
 *   with the next number and announced with `pg_notify`. Write transactions run one at a time
 *   (the store's advisory lock), so numbers grow in commit order, and PostgreSQL delivers the
 *   announcement at commit, in commit order, or never when the transaction rolls back.
 * - A dedicated connection LISTENs. An announcement carries the event itself when it is small,
 *   else only its number (the node reads the row). The node's own events are skipped: its bus
 *   told its listeners at commit already.
 * - Announcements are handled one at a time in number order; a number past the next expected
 *   one (a lost announcement) and a listening connection found again after it was lost (a
 *   database restart) both read the rows after the last number seen, so nothing is missed or
 *   told twice.
 */
export class ClusterEvents {
  /** this runtime's id in the rows: a new one per process */
  readonly origin = Bun.randomUUIDv7();
  private insert: Statement<{ seq: number }>;
  private insertMany: Statement<{ seq: number }>;
  private after: Statement<EventRow>;
  private listener: postgres.Sql | null = null;
  private lastSeq: number | null = null;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private listening = false;

  constructor(
    private db: DB,
    private bus: EventBus,
    private url: string,
    private clock: Clock,
    private log: Logger,
  ) {
    this.insert = db.prepare(
      `WITH ins AS (
         INSERT INTO cluster_events (seq, workspace_id, origin, body, created_at)
         SELECT coalesce(max(seq), 0) + 1, ?1::text, ?2::text, ?3::text, ?4::bigint FROM cluster_events RETURNING seq)
       SELECT seq, pg_notify('${EVENTS_CHANNEL}', CASE WHEN octet_length(?3::text) <= ${INLINE_MAX_BYTES}
         THEN json_build_object('s', seq, 'o', ?2::text, 'e', ?3::json)::text
         ELSE json_build_object('s', seq, 'o', ?2::text)::text END) AS sent FROM ins`,
    );
    // the events of a group commit (groupCollect): one statement, numbered in publishing order
    this.insertMany = db.prepare(
      `WITH base AS (SELECT coalesce(max(seq), 0) AS s FROM cluster_events),
       ins AS (
         INSERT INTO cluster_events (seq, workspace_id, origin, body, created_at)
         SELECT base.s + x.n, x.v->>0, ?2::text, x.v->>1, ?3::bigint FROM base, jsonb_array_elements(?1::jsonb) WITH ORDINALITY AS x(v, n)
         RETURNING seq, body)
       SELECT seq, pg_notify('${EVENTS_CHANNEL}', CASE WHEN octet_length(body) <= ${INLINE_MAX_BYTES}
         THEN json_build_object('s', seq, 'o', ?2::text, 'e', body::json)::text
         ELSE json_build_object('s', seq, 'o', ?2::text)::text END) AS sent FROM ins ORDER BY seq`,
    );
    this.after = db.prepare(`SELECT seq, origin, body FROM cluster_events WHERE seq > ? ORDER BY seq LIMIT ${CATCH_UP_BATCH}`);
    bus.onPublish((e) => this.record(e));
  }

  /**
   * In the publisher's transaction: the row and its announcement (sent by PostgreSQL at commit).
   * In a group commit (inbound messages) the group's events are written together at its end,
   * still before its commit and numbered in the order they were published.
   */
  private async record(e: AppEvent): Promise<void> {
    const row: [string, string] = [e.workspaceId, JSON.stringify(e)];
    if (groupCollect("cluster.events", row, (rows) => this.recordMany(rows))) return;
    await this.insert.get(row[0], this.origin, row[1], this.clock.nowMs());
  }

  private async recordMany(rows: [string, string][]): Promise<void> {
    await this.insertMany.all(JSON.stringify(rows), this.origin, this.clock.nowMs());
  }

  /** Starts listening; resolves once the first LISTEN is in place (or failed: it is retried in the background). */
  async start(): Promise<void> {
    this.stopped = false;
    // `onnotify` is postgres.js's own hook for notifications (its types leave it out)
    const options = {
      max: 1,
      // no query but LISTEN on this connection: postgres.js's look-up of array types at connect
      // would be a query nobody awaits, and a connection cut during it an uncaught error
      fetch_types: false,
      idle_timeout: 0,
      max_lifetime: null,
      onnotice: () => {},
      connection: { application_name: "parley-events" },
      onnotify: (channel: string, payload: string) => {
        if (channel === EVENTS_CHANNEL) this.enqueue(() => this.onAnnouncement(payload));
        else if (channel === READS_CHANNEL) readCache(this.db).heard(payload);
      },
      onclose: () => {
        if (this.stopped) return;
        this.listening = false;
        readCache(this.db).setLive(false);
        this.log.warn("event listener connection lost; listening again");
        this.scheduleListen();
      },
    };
    this.listener ??= postgres(this.url, options as postgres.Options<{}>);
    await this.listen();
  }

  /** Whether the listening connection is in place (for health views and tests). */
  isListening(): boolean {
    return this.listening;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const l = this.listener;
    this.listener = null;
    this.listening = false;
    readCache(this.db).setLive(false);
    await this.chain.catch(() => {});
    await l?.end({ timeout: 1 }).catch(() => {});
  }

  /** Deletes the rows older than KEEP_MS, never the newest (the numbers go on from it). */
  async prune(): Promise<number> {
    const r = await this.db
      .prepare("DELETE FROM cluster_events WHERE created_at < ? AND seq < (SELECT max(seq) FROM cluster_events)")
      .run(this.clock.nowMs() - KEEP_MS);
    return r.changes;
  }

  private async listen(): Promise<void> {
    const l = this.listener;
    if (!l || this.stopped) return;
    try {
      await l.unsafe(`LISTEN ${EVENTS_CHANNEL}`);
      await l.unsafe(`LISTEN ${READS_CHANNEL}`);
    } catch (err) {
      this.log.warn("event listener cannot listen; trying again", { err, retryMs: this.retryMs });
      this.scheduleListen();
      return;
    }
    this.listening = true;
    // the guard's rows may be kept again: changes from now on are heard (everything read before is dropped)
    readCache(this.db).setLive(true);
    this.retryMs = RETRY_MIN_MS;
    // first LISTEN: events from now on; after a lost connection: the rows committed meanwhile
    this.enqueue(() => (this.lastSeq === null ? this.begin() : this.catchUp()));
  }

  private scheduleListen(): void {
    if (this.stopped || this.retryTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.listen();
    }, wait);
    (this.retryTimer as { unref?: () => void }).unref?.();
  }

  private enqueue(fn: () => Promise<void>): void {
    this.chain = this.chain.then(fn).catch((err) => {
      this.log.warn("cluster event not delivered; catching up at the next one", { err });
    });
  }

  private async begin(): Promise<void> {
    const row = await this.db.prepare<{ seq: number | null }>("SELECT max(seq) AS seq FROM cluster_events").get();
    // announcements handled before this read set it already
    this.lastSeq ??= Number(row?.seq ?? 0);
  }

  private async onAnnouncement(payload: string): Promise<void> {
    let a: Announcement;
    try {
      a = JSON.parse(payload) as Announcement;
    } catch {
      return;
    }
    if (this.lastSeq === null) {
      // heard before the first read of the newest number: this is the first event after it
      this.lastSeq = a.s - 1;
    }
    if (a.s <= this.lastSeq) return; // read with the rows already
    if (a.s !== this.lastSeq + 1 || !a.e) return this.catchUp();
    this.lastSeq = a.s;
    if (a.o !== this.origin) this.bus.deliverFromOtherNode(a.e);
  }

  /** Reads and delivers the rows after the last number seen. */
  private async catchUp(): Promise<void> {
    for (;;) {
      const rows = await this.after.all(this.lastSeq ?? 0);
      for (const r of rows) {
        this.lastSeq = Number(r.seq);
        if (r.origin === this.origin) continue;
        try {
          this.bus.deliverFromOtherNode(JSON.parse(r.body) as AppEvent);
        } catch (err) {
          this.log.warn("cluster event row unreadable", { seq: r.seq, err });
        }
      }
      if (rows.length < CATCH_UP_BATCH) return;
    }
  }
}
