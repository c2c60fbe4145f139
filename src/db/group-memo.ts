import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Reads and writes shared by the items of one group commit (the inbound messages stored in one
 * transaction).
 *
 * Reads: write transactions run one at a time, so while a group runs nothing but the group
 * itself writes: a row the group's items never write (a workspace's automations, its webhooks,
 * its opt-out keywords) reads the same for all of them, and is read once per group instead of
 * once per item (`groupOnce`). Use it only for such rows; values are shared: never mutate one.
 *
 * Writes: an item may leave a write for the end of the group (`groupCollect`), made once for
 * every item's values, inside the group's transaction after its last item. An item that rolls
 * back takes its collected values with it (`mark` / `dropFrom`).
 *
 * Deferred writes: an item may send a write without waiting for its answer (`groupDefer`); the
 * group waits for all of them at its end, before its collected writes and its COMMIT. On
 * PostgreSQL the statement goes out in the same flight as the item's next one (a connection
 * runs its statements in order), a round trip less; a deferred write that fails fails the group
 * (its transaction is then rolled back, and every item is stored alone).
 *
 * Outside a group every read goes to the store, nothing is collected and nothing deferred.
 */
class Group {
  memo = new Map<string, Promise<unknown>>();
  lists = new Map<string, { items: unknown[]; write: (items: unknown[]) => Promise<void> }>();
  locals = new Map<string, unknown>();
  deferred: Promise<unknown>[] = [];
  private log: string[] = [];

  /** Where the current item starts. */
  mark(): number {
    return this.log.length;
  }

  /** The item that started at `mark` rolled back: its collected values go. */
  dropFrom(mark: number): void {
    for (const key of this.log.splice(mark).reverse()) this.lists.get(key)!.items.pop();
  }

  collect(key: string, item: unknown, write: (items: unknown[]) => Promise<void>): void {
    let l = this.lists.get(key);
    if (!l) this.lists.set(key, (l = { items: [], write }));
    l.items.push(item);
    this.log.push(key);
  }

  /** Makes the collected writes; call last, inside the group's transaction. */
  async writeCollected(): Promise<void> {
    // every deferred write answered (the first failure fails the group)
    for (const p of this.deferred.splice(0)) await p;
    for (const l of this.lists.values()) if (l.items.length) await l.write(l.items.splice(0));
    this.log = [];
  }

  /**
   * writeCollected on PostgreSQL: the collected writes go out at once, in the same flight as the
   * wait for the deferred ones (a connection runs its statements in order), and are answered
   * together: one round trip, not one per list. Only for lists whose writes do not depend on one
   * another. A failure fails the group, as there.
   */
  async writeCollectedTogether(): Promise<void> {
    const writes: Promise<unknown>[] = this.deferred.splice(0);
    for (const l of this.lists.values()) if (l.items.length) writes.push(l.write(l.items.splice(0)));
    this.log = [];
    for (const w of writes) w.catch(() => {}); // the first failure is thrown below; the others are its consequence
    await Promise.all(writes);
  }
}

const groups = new AsyncLocalStorage<Group>();

/** Runs `fn` (the group's transaction) with a group of its own; `fn` gets it to mark items and write what they collected. */
export function withGroup<T>(fn: (group: Pick<Group, "mark" | "dropFrom" | "writeCollected" | "writeCollectedTogether">) => Promise<T>): Promise<T> {
  const g = new Group();
  return groups.run(g, () => fn(g));
}

/** `read()` once per group for `key` (a failed read is not kept); at once outside a group. */
export function groupOnce<T>(key: string, read: () => Promise<T>): Promise<T> {
  const g = groups.getStore();
  if (!g) return read();
  let v = g.memo.get(key) as Promise<T> | undefined;
  if (!v) {
    v = read();
    g.memo.set(key, v);
    v.catch(() => g.memo.delete(key));
  }
  return v;
}

/**
 * Sends a write without waiting for its answer inside a group (the group waits for it at its
 * end: a failure fails the group); outside a group, waits for it at once. Only for a write whose
 * answer the caller does not need, in an item without a savepoint of its own.
 */
export async function groupDefer(write: Promise<unknown>): Promise<void> {
  const g = groups.getStore();
  if (!g) {
    await write;
    return;
  }
  write.catch(() => {}); // answered at the group's end
  g.deferred.push(write);
}

/** State the items of one group share (made by `make` on first use); undefined outside a group. */
export function groupLocal<T>(key: string, make: () => T): T | undefined {
  const g = groups.getStore();
  if (!g) return undefined;
  let v = g.locals.get(key) as T | undefined;
  if (v === undefined) g.locals.set(key, (v = make()));
  return v;
}

/**
 * Leaves `item` for one call of `write` with every item's values at the end of the group;
 * answers false outside a group (the caller writes it itself, at once).
 */
export function groupCollect<T>(key: string, item: T, write: (items: T[]) => Promise<void>): boolean {
  const g = groups.getStore();
  if (!g) return false;
  g.collect(key, item, write as (items: unknown[]) => Promise<void>);
  return true;
}

const warmers = new WeakMap<object, ((workspaceId: string) => unknown)[]>();

/**
 * Registers a read that a group's items of `db` make once per group for a workspace (through
 * `groupOnce`), so that the group can make it at its start, in one flight with its other reads
 * (`groupWarm`), instead of when its first item gets there.
 */
export function onGroupWarm(db: object, read: (workspaceId: string) => unknown): void {
  let list = warmers.get(db);
  if (!list) warmers.set(db, (list = []));
  list.push(read);
}

/** Starts, inside the current group, every read registered for `db` for `workspaceId` (see onGroupWarm); resolves once all answered. */
export async function groupWarm(db: object, workspaceId: string): Promise<void> {
  if (!groups.getStore()) return;
  await Promise.all((warmers.get(db) ?? []).map(async (read) => read(workspaceId)));
}
