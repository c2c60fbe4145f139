import type { DB } from "../../db/store.ts";
import { GroupCommit, type GroupKind, type GroupRunOptions } from "../../db/group-commit.ts";

/**
 * What the sends of one group transaction share. The group is one `db.tx`, and write
 * transactions run one at a time, so nothing else writes while it runs: a value read once (the plan in force,
 * the month's usage, whether the session's sender job exists) stays true for the whole group,
 * except for what the group itself changes, which it tracks here. A send whose savepoint rolls
 * back takes its own changes out of it too (`drop`).
 */
export class SendGroup {
  private memo = new Map<string, unknown>();
  /** reads started by `prefetch`, not yet taken by `once` or `counter` */
  private early = new Map<string, Promise<unknown>>();
  private counters = new Map<string, { n: number; added: number; write: (n: number) => Promise<void> }>();
  private deferred = new Map<string, { value: unknown; write: (v: unknown) => Promise<void> }>();
  private lists = new Map<string, { items: unknown[]; write: (items: unknown[]) => Promise<void> }>();
  // what the current send did, to take back if its savepoint rolls back
  private touched: string[] = [];
  private counted: string[] = [];
  private replaced: [string, { value: unknown; write: (v: unknown) => Promise<void> } | undefined][] = [];
  private collected: string[] = [];
  private began = false;

  /**
   * `pipelined`: the group's end writes go out together and are answered together (PostgreSQL,
   * where each is a round trip under the write lock); otherwise one after another.
   */
  constructor(private pipelined = false) {}

  /**
   * Starts `read()` for `key` without waiting (an item's `prepare`, before the group's first send
   * runs): the first `once` or `counter` of `key` takes its answer instead of reading. On
   * PostgreSQL the group's reads then go out in one flight. Nothing when `key` is known or
   * already being read. A failed read fails the statement after it too (the transaction is
   * aborted): the group then rolls back and each send runs alone.
   */
  prefetch<T>(key: string, read: () => Promise<T>): void {
    if (this.memo.has(key) || this.counters.has(key) || this.early.has(key)) return;
    const p = read();
    p.catch(() => {}); // answered to whoever takes it
    this.early.set(key, p);
  }

  /** Whether a `prefetch` of `key` is waiting to be taken. */
  prefetched(key: string): boolean {
    return this.early.has(key);
  }

  /** The answer of a prefetched read, taken once (a second read of the key reads again). */
  private taken<T>(key: string): Promise<T> | undefined {
    const p = this.early.get(key) as Promise<T> | undefined;
    if (p) this.early.delete(key);
    return p;
  }

  /** The current send starts writing: call before its first write (see SendBatcher.run). */
  writing(): void {
    this.began = true;
  }

  /** Whether the current send has started writing. */
  get wrote(): boolean {
    return this.began;
  }

  /** Whether `once` already holds a value for `key`. */
  has(key: string): boolean {
    return this.memo.has(key);
  }

  /** The value `once` holds for `key` (check `has` first). */
  get<T>(key: string): T {
    return this.memo.get(key) as T;
  }

  /**
   * The value `once` holds for `key`, or undefined: for a caller that skips the await of `once`
   * when the group already knows the value (only for values that are never undefined or null).
   */
  known<T>(key: string): T | undefined {
    return (this.memo.get(key) ?? undefined) as T | undefined;
  }

  /** `read()` once per group (and again after a rolled-back send that first read it). */
  async once<T>(key: string, read: () => Promise<T>): Promise<T> {
    if (this.memo.has(key)) return this.memo.get(key) as T;
    const v = await (this.taken<T>(key) ?? read());
    this.memo.set(key, v);
    this.touched.push(key);
    return v;
  }

  /** The stored value of a counter plus what the group added so far. */
  async counter(key: string, read: () => Promise<number>, write: (added: number) => Promise<void>): Promise<number> {
    let c = this.counters.get(key);
    if (!c) {
      const n = await (this.taken<number>(key) ?? read());
      c = this.counters.get(key); // (a counter is read by one send at a time: still unset)
      if (!c) this.counters.set(key, (c = { n, added: 0, write }));
    }
    return c.n + c.added;
  }

  /** What `counter` would answer for `key` once it read the counter, without an await; undefined before. */
  countOf(key: string): number | undefined {
    const c = this.counters.get(key);
    return c && c.n + c.added;
  }

  /** Adds one to a counter read by `counter`; written once, in `writeDeferred`. */
  count(key: string): void {
    this.counters.get(key)!.added++;
    this.counted.push(key);
  }

  /** The value last given to `defer` for `key`, if any. */
  pending<T>(key: string): T | undefined {
    return this.deferred.get(key)?.value as T | undefined;
  }

  /** A write made once at the end of the group, with the value of the last send that set it. */
  defer<T>(key: string, value: T, write: (v: T) => Promise<void>): void {
    this.replaced.push([key, this.deferred.get(key)]);
    this.deferred.set(key, { value, write: write as (v: unknown) => Promise<void> });
  }

  /** Adds `item` to a list written once at the end of the group, by one call of `write` with every send's items. */
  collect<T>(key: string, item: T, write: (items: T[]) => Promise<void>): void {
    let l = this.lists.get(key);
    if (!l) this.lists.set(key, (l = { items: [], write: write as (items: unknown[]) => Promise<void> }));
    l.items.push(item);
    this.collected.push(key);
  }

  /** The current send's savepoint committed: keep what it did. */
  keep(): void {
    this.touched = [];
    this.collected = [];
    this.counted = [];
    this.replaced = [];
    this.began = false;
  }

  /** The current send's savepoint rolled back: forget what it did. */
  drop(): void {
    for (const k of this.touched) this.memo.delete(k);
    for (const k of this.counted) this.counters.get(k)!.added--;
    for (const k of this.collected.reverse()) this.lists.get(k)!.items.pop();
    for (const [k, prev] of this.replaced.reverse()) {
      if (prev) this.deferred.set(k, prev);
      else this.deferred.delete(k);
    }
    this.keep();
  }

  /**
   * Makes the counters', the deferred and the collected writes; call last, inside the group's
   * transaction and after the last send's savepoint. Pipelined, with `wait: false`, the writes
   * are handed to the connection and not waited for: the transaction's COMMIT goes out in the
   * same flight, and a write that fails makes it answer ROLLBACK, which the store reports as a
   * failed transaction (the group then rolls back and every send runs alone, waiting for each
   * write). So every write given to `counter`, `defer` or `collect` must hand its statement to
   * the connection before its first await (a prepared statement's `run` does), and write no
   * table an in-memory cache watches (db/read-cache.ts: those writes are reported once answered).
   */
  async writeDeferred(opts: { wait: boolean } = { wait: true }): Promise<void> {
    if (this.pipelined) {
      // every write handed to the connection now, in this order, and answered together
      const writes: Promise<unknown>[] = [];
      for (const c of this.counters.values()) if (c.added) writes.push(c.write(c.added));
      for (const d of this.deferred.values()) writes.push(d.write(d.value));
      for (const l of this.lists.values()) if (l.items.length) writes.push(l.write(l.items));
      const answered = Promise.all(writes);
      if (opts.wait) await answered;
      else answered.catch(() => {}); // the COMMIT says whether they all went through
      return;
    }
    for (const c of this.counters.values()) if (c.added) await c.write(c.added);
    for (const d of this.deferred.values()) await d.write(d.value);
    for (const l of this.lists.values()) if (l.items.length) await l.write(l.items);
  }
}

/** Sends share one SendGroup: it is every send's step, and keeps or takes back each send's share. */
const sendGroups = (pipelined: boolean): GroupKind<SendGroup> => ({
  open(body) {
    const group = new SendGroup(pipelined);
    return body({
      step: () => group,
      wrote: (g) => g.wrote,
      keep: (g) => g.keep(),
      drop: (g) => g.drop(),
      end: () => group.writeDeferred({ wait: false }),
    });
  },
  async alone(fn) {
    const group = new SendGroup(pipelined);
    const v = await fn(group);
    await group.writeDeferred();
    return v;
  },
  single: false,
});

/**
 * Group commit of accepted sends (db/group-commit.ts). A send's transaction is mostly its
 * COMMIT (the WAL write of the message row, its indexes, the conversation and the counters);
 * the sends that arrive in the same turn of the event loop are committed together, one after
 * another, sharing the group's memo and one connection. A refused one (quota, idempotency
 * conflict) rolls back alone and the others still commit: it is refused before it writes, or it
 * runs in a savepoint of its own (see `run`). The 202 still comes only after the commit. A body
 * must not publish events (a savepoint rolled back would not take them back); sends publish
 * none: they enqueue the sender job.
 */
export class SendBatcher {
  private groups: GroupCommit<SendGroup>;

  constructor(db: DB) {
    // one group at a time on both engines: a group that took its connection and waited for the
    // write lock while the one before it committed made the groups smaller and the p50 and p99
    // of a send worse, not better (docs/benchmarks.md "Send p99 on PostgreSQL")
    // PostgreSQL: the next group's BEGIN, lock and reads go out behind the COMMIT of the one
    // before, on its connection (see "Send groups on PostgreSQL" in docs/messages.md)
    this.groups = new GroupCommit(db, sendGroups(db.engine === "postgres"), db.engine === "postgres");
  }

  /**
   * Runs `fn` in the next group transaction; resolves with its result once committed. Without
   * a savepoint (two statements a send), `fn` must do every check that can refuse it before
   * `group.writing()`: a failure after it rolls the whole group back, then each send runs alone.
   * `prepare` starts the reads `fn` will need (`SendGroup.prefetch`) before the group's first send runs.
   */
  run<T>(fn: (group: SendGroup) => Promise<T>, opts: GroupRunOptions<SendGroup> = { savepoint: true }): Promise<T> {
    return this.groups.run(fn, opts);
  }
}
