import type { DB } from "./store.ts";
import { tableWrites } from "./table-writes.ts";

/** The NOTIFY channel that tells every node a watched table changed. */
export const READS_CHANNEL = "parley_reads";
/** A kept value is read again after this long whatever happens (a lost announcement, a node killed between commit and announcement). */
export const READ_CACHE_TTL_MS = 5_000;
/**
 * The tables whose rows the request guard keeps: credentials, members, the plan limits they
 * carry, and the sessions the API-key listing answers (a route's `load` that declares them).
 */
export const CACHED_TABLES = ["api_keys", "users", "plans", "workspaces", "chat_sessions"] as const;

/**
 * Writes that change no column anything kept is read from, so they drop nothing: the batched
 * record of an API key's last use (apikeys/last-used.ts) and a linked session's sealed
 * credentials (sessions/keys-repo.ts, written whenever the network rotates them).
 */
const UNREAD_COLUMNS = [
  /^\s*update\s+"?api_keys"?\s+set\s+"?last_used_at"?\s*=\s*(?:\?|\$\d+)\s+where\b/i,
  /^\s*update\s+"?chat_sessions"?\s+set\s+"?credentials"?\s*=\s*(?:\?|\$\d+)\s+where\b/i,
];

/**
 * PostgreSQL's counterpart of SQLite's snapshot memo (snapshot-memo.ts) for the request guard:
 * rows read from a few tables (credentials, members, plans, workspaces, sessions), kept in
 * memory until any of those tables changes.
 *
 * - On this node: the store reports every committed write to a watched table (table-writes.ts),
 *   and everything kept is dropped before the writer's call returns.
 * - On the other nodes (and operator commands run as other processes): the writer announces the
 *   change with `pg_notify` once committed; each node's event listener (events/cluster.ts)
 *   hears it and drops everything. While that listener is not in place (not started, connection
 *   lost) nothing is kept; once it listens again everything read before is dropped.
 * - A read that started before a change and answers after it is not kept (a generation count),
 *   and nothing is kept longer than READ_CACHE_TTL_MS.
 *
 * Values are shared between requests: never mutate one.
 */
export class ReadCache {
  private maps: (Map<unknown, { value: unknown; at: number }> | undefined)[] = [];
  private count = 0;
  private generation = 0;
  private live = false;
  private notify: ((origin: string) => unknown) | null = null;
  /** this process's id in announcements: its own are not handled twice */
  readonly origin = Bun.randomUUIDv7();

  constructor(
    private now: () => number = () => performance.now(),
    private max = 10_000,
  ) {}

  /** Starts watching `tables` of `db` (PostgreSQL): local writes drop the values and are announced to the other nodes. */
  watch(db: DB, tables: readonly string[]): void {
    const announce = db.prepare(`SELECT pg_notify('${READS_CHANNEL}', ?)`);
    this.notify = (origin) => announce.get(origin).catch(() => {});
    tableWrites(db).watch(tables, (_table, sql) => {
      if (!UNREAD_COLUMNS.some((re) => re.test(sql))) this.changed(true);
    });
  }

  /** Whether values may be kept (the listener hears other nodes' changes). Any switch drops everything. */
  setLive(live: boolean): void {
    this.live = live;
    this.drop();
  }

  /** An announcement heard on READS_CHANNEL. */
  heard(origin: string): void {
    if (origin !== this.origin) this.changed(false);
  }

  /** The value of `key`: kept, or read by `read` (a promise is resolved and then kept, if nothing changed meanwhile). */
  get<R>(space: number, key: unknown, read: () => Promise<R>): R | Promise<R> {
    if (!this.live || !this.notify) return read();
    const map = this.maps[space];
    const hit = map?.get(key);
    if (hit && this.now() - hit.at < READ_CACHE_TTL_MS) return hit.value as R;
    const generation = this.generation;
    const at = this.now();
    return read().then((value) => {
      if (generation === this.generation && this.live) this.set(space, key, value, at);
      return value;
    });
  }

  /** Values kept now. */
  get size(): number {
    return this.count;
  }

  private changed(local: boolean): void {
    this.drop();
    if (local) void this.notify?.(this.origin);
  }

  private set(space: number, key: unknown, value: unknown, at: number): void {
    if (this.count >= this.max) this.drop();
    let map = this.maps[space];
    if (!map) this.maps[space] = map = new Map();
    if (!map.has(key)) this.count++;
    map.set(key, { value, at });
  }

  private drop(): void {
    this.generation++;
    if (this.count === 0) return;
    for (const map of this.maps) map?.clear();
    this.count = 0;
  }
}

const byReadCache = new WeakMap<object, ReadCache>();
/** The read cache of a store (PostgreSQL; on SQLite the guard uses the snapshot memo). Keeps nothing until `watch` and `setLive(true)`. */
export function readCache(db: object): ReadCache {
  let v = byReadCache.get(db);
  if (!v) byReadCache.set(db, (v = new ReadCache()));
  return v;
}
