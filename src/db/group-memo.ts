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
 * Outside a group every read goes to the store and nothing is collected.
 */
class Group {
  memo = new Map<string, Promise<unknown>>();
  lists = new Map<string, { items: unknown[]; write: (items: unknown[]) => Promise<void> }>();
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
    for (const l of this.lists.values()) if (l.items.length) await l.write(l.items.splice(0));
    this.log = [];
  }
}

const groups = new AsyncLocalStorage<Group>();

/** Runs `fn` (the group's transaction) with a group of its own; `fn` gets it to mark items and write what they collected. */
export function withGroup<T>(fn: (group: Pick<Group, "mark" | "dropFrom" | "writeCollected">) => Promise<T>): Promise<T> {
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
 * Leaves `item` for one call of `write` with every item's values at the end of the group;
 * answers false outside a group (the caller writes it itself, at once).
 */
export function groupCollect<T>(key: string, item: T, write: (items: T[]) => Promise<void>): boolean {
  const g = groups.getStore();
  if (!g) return false;
  g.collect(key, item, write as (items: unknown[]) => Promise<void>);
  return true;
}
