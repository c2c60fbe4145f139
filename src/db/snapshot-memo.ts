import type { Database } from "bun:sqlite";
import { oncePer } from "./prepared.ts";
import { WAL_HEADER, walIndexView } from "./wal-index.ts";

const { change: CHANGE, frames: FRAMES, cksum: CKSUM, copy: COPY } = WAL_HEADER;

let spaces = 0;

/** A keyspace of the snapshot memo (keys of two spaces never meet): made once, at module load or route set-up. */
export function memoSpace(): number {
  return spaces++;
}

/**
 * Values read from the database, kept while nothing has been committed since they were read:
 * the hot authenticated GETs read the same credential row (and route data) over and over, and
 * each read costs two system calls for SQLite's shared locks, more than the lookup itself.
 * Any commit, by this process or another (the operator CLI revoking a key), changes the
 * WAL-index header (wal-index.ts), and the next `open` drops every value: a hit answers what a read would answer now.
 *
 * Use: `open()` before reading (false: do not keep anything), then `get` and, on a miss,
 * read and `set`. The header is read before the rows, so a commit landing between the two
 * only makes the kept value newer than its stamp, and it is dropped at the next change.
 * Values are shared between requests: never mutate one.
 */
export class SnapshotMemo {
  // one Map per space: a key needs no prefix (building and hashing a new string per request
  // cost more than the lookup), and an object (a row read before) can be a key
  private maps: (Map<unknown, unknown> | undefined)[] = [];
  private count = 0;
  private change = -1;
  private cksum0 = 0;
  private cksum1 = 0;
  private frames = 0;

  constructor(
    private sqlite: Database,
    private header: DataView | null,
    private max = 10_000,
  ) {}

  /** Reads the header; false when values must not be kept (no WAL index, a commit under way, inside a transaction). */
  open(): boolean {
    const h = this.header;
    if (h === null || this.sqlite.inTransaction) return false;
    const change = h.getUint32(CHANGE, true);
    const frames = h.getUint32(FRAMES, true);
    const c0 = h.getUint32(CKSUM, true);
    const c1 = h.getUint32(CKSUM + 4, true);
    if (change !== h.getUint32(COPY + CHANGE, true) || frames !== h.getUint32(COPY + FRAMES, true) || c0 !== h.getUint32(COPY + CKSUM, true) || c1 !== h.getUint32(COPY + CKSUM + 4, true)) {
      this.clear();
      this.change = -1;
      return false;
    }
    if (change !== this.change || frames !== this.frames || c0 !== this.cksum0 || c1 !== this.cksum1) {
      this.clear();
      this.change = change;
      this.frames = frames;
      this.cksum0 = c0;
      this.cksum1 = c1;
    }
    return true;
  }

  get<V>(space: number, key: unknown): V | undefined {
    return this.maps[space]?.get(key) as V | undefined;
  }

  /** Keeps `value` for `key`: only after an `open()` that answered true, in the same synchronous run. */
  set(space: number, key: unknown, value: unknown): void {
    if (this.count >= this.max) this.clear();
    let map = this.maps[space];
    if (!map) this.maps[space] = map = new Map();
    map.set(key, value);
    this.count++;
  }

  /** Values kept now (at most `max`). */
  get size(): number {
    return this.count;
  }

  private clear(): void {
    if (this.count === 0) return;
    for (const map of this.maps) map?.clear();
    this.count = 0;
  }
}

/**
 * The memo of a connection. A database without a mapped WAL index (in memory, other journal
 * modes, opened without openDb) gets one that never keeps anything.
 */
export const snapshotMemo = oncePer((sqlite: Database): SnapshotMemo => new SnapshotMemo(sqlite, walIndexHeader(sqlite)));

function walIndexHeader(sqlite: Database): DataView | null {
  const file = sqlite.filename;
  if (!file || file === ":memory:") return null;
  const mode = (sqlite.query("PRAGMA journal_mode").get() as { journal_mode: string } | null)?.journal_mode;
  return mode === "wal" ? walIndexView(file) : null;
}
