import type { DB } from "../../db/store.ts";
import { GroupCommit, type GroupKind } from "../../db/group-commit.ts";
import { indexMessageText } from "./fts-repo.ts";

/**
 * What the sends of one group transaction share. The group is one `db.tx`, and write
 * transactions run one at a time, so nothing else writes while it runs: a value read once (the plan in force,
 * the month's usage, whether the session's sender job exists) stays true for the whole group,
 * except for what the group itself changes, which it tracks here. A send whose savepoint rolls
 * back takes its own changes out of it too (`drop`).
 */
export class SendGroup {
  private memo = new Map<string, unknown>();
  private counters = new Map<string, { n: number; added: number; write: (n: number) => Promise<void> }>();
  private deferred = new Map<string, { value: unknown; write: (v: unknown) => Promise<void> }>();
  private lists = new Map<string, { items: unknown[]; write: (items: unknown[]) => Promise<void> }>();
  // what the current send did, to take back if its savepoint rolls back
  private touched: string[] = [];
  private counted: string[] = [];
  private replaced: [string, { value: unknown; write: (v: unknown) => Promise<void> } | undefined][] = [];
  private collected: string[] = [];
  private began = false;

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
    const v = await read();
    this.memo.set(key, v);
    this.touched.push(key);
    return v;
  }

  /** The stored value of a counter plus what the group added so far. */
  async counter(key: string, read: () => Promise<number>, write: (added: number) => Promise<void>): Promise<number> {
    let c = this.counters.get(key);
    if (!c) this.counters.set(key, (c = { n: await read(), added: 0, write }));
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
   * transaction and after the last send's savepoint.
   */
  async writeDeferred(): Promise<void> {
    for (const c of this.counters.values()) if (c.added) await c.write(c.added);
    for (const d of this.deferred.values()) await d.write(d.value);
    for (const l of this.lists.values()) if (l.items.length) await l.write(l.items);
  }
}

/**
 * Adds a message the current send inserted to the search index at the end of the group: the
 * group's messages in one statement, after its last savepoint (see fts-repo.ts). Nothing in a
 * send group deletes a message or changes its text, so none changes before it is indexed.
 */
export function indexTextLater(db: DB, group: SendGroup, messageId: string): void {
  group.collect("search-index", messageId, (ids: string[]) => indexMessageText(db, ids));
}

/** Sends share one SendGroup: it is every send's step, and keeps or takes back each send's share. */
const sendGroups: GroupKind<SendGroup> = {
  open(body) {
    const group = new SendGroup();
    return body({
      step: () => group,
      wrote: (g) => g.wrote,
      keep: (g) => g.keep(),
      drop: (g) => g.drop(),
      end: () => group.writeDeferred(),
    });
  },
  async alone(fn) {
    const group = new SendGroup();
    const v = await fn(group);
    await group.writeDeferred();
    return v;
  },
  single: false,
};

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
    this.groups = new GroupCommit(db, sendGroups);
  }

  /**
   * Runs `fn` in the next group transaction; resolves with its result once committed. Without
   * a savepoint (two statements a send), `fn` must do every check that can refuse it before
   * `group.writing()`: a failure after it rolls the whole group back, then each send runs alone.
   */
  run<T>(fn: (group: SendGroup) => Promise<T>, opts: { savepoint: boolean } = { savepoint: true }): Promise<T> {
    return this.groups.run(fn, opts);
  }
}
