import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Reads shared by the items of one group commit (the inbound messages stored in one
 * transaction). Write transactions run one at a time, so while a group runs nothing but the
 * group itself writes: a row the group's items never write (a workspace's automations, its
 * webhooks, its opt-out keywords) reads the same for all of them, and is read once per group
 * instead of once per item. Outside a group every read goes to the store.
 *
 * Use it only for rows no item of the group writes; values are shared: never mutate one.
 */
const groups = new AsyncLocalStorage<Map<string, Promise<unknown>>>();

/** Runs `fn` (the group's transaction) with a memo of its own. */
export function withGroupMemo<T>(fn: () => Promise<T>): Promise<T> {
  return groups.run(new Map(), fn);
}

/** `read()` once per group for `key` (a failed read is not kept); at once outside a group. */
export function groupOnce<T>(key: string, read: () => Promise<T>): Promise<T> {
  const memo = groups.getStore();
  if (!memo) return read();
  let v = memo.get(key) as Promise<T> | undefined;
  if (!v) {
    v = read();
    memo.set(key, v);
    v.catch(() => memo.delete(key));
  }
  return v;
}
