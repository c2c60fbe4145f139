import type { Database } from "bun:sqlite";
import type { AppDeps } from "../../deps.ts";

interface Pending {
  fn: () => unknown;
  resolve(v: unknown): void;
  reject(err: unknown): void;
}

/**
 * Group commit of accepted sends. A send's transaction is mostly its COMMIT (the WAL write of
 * the message row, its indexes, the conversation and the counters); the sends that arrive in
 * the same turn of the event loop are committed together, each in a savepoint of its own, so a
 * refused one (quota, idempotency conflict) rolls back alone and the others still commit. The
 * 202 still comes only after the commit. A body must not publish events (a savepoint rolled
 * back would not take them back); sends publish none: they enqueue the sender job.
 */
export class SendBatcher {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(private deps: Pick<AppDeps, "bus" | "sqlite">) {}

  /** Runs `fn` in the next group transaction; resolves with its result once committed. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0);
    if (!batch.length) return;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = [];
    try {
      this.deps.bus.transaction(() => {
        for (const p of batch) {
          try {
            outcomes.push({ ok: true, value: this.deps.sqlite.transaction(p.fn)() }); // a savepoint
          } catch (err) {
            outcomes.push({ ok: false, err });
          }
        }
      });
    } catch {
      // the group did not commit (nothing of it is stored): each send on its own
      for (const p of batch) {
        try {
          p.resolve(this.deps.bus.transaction(p.fn));
        } catch (err) {
          p.reject(err);
        }
      }
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.err);
    });
  }
}

const batchers = new WeakMap<Database, SendBatcher>();

/** The batcher of a runtime (one per database). */
export function sendBatcher(deps: Pick<AppDeps, "bus" | "sqlite">): SendBatcher {
  let b = batchers.get(deps.sqlite);
  if (!b) batchers.set(deps.sqlite, (b = new SendBatcher(deps)));
  return b;
}
