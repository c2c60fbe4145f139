import type { AppDeps } from "../../deps.ts";
import { TurnQueue } from "../../db/turn-queue.ts";

interface Pending {
  fn: () => Promise<unknown>;
  resolve(v: unknown): void;
  reject(err: unknown): void;
}

/**
 * Group commit of send outcomes. A drained message's transaction is mostly its COMMIT (the WAL
 * write of the row and its indexes); the outcomes of the sends that finished in the same turn
 * of the event loop (one per session draining) commit together, in one `db.tx`, each with the
 * claim of its session's next head. A body publishes events, so there are no savepoints: a body
 * that throws rolls the whole group back (its events with it, unheard), and then every body runs
 * again in a transaction of its own. The outcome is committed before its caller goes on.
 */
export class OutcomeBatcher {
  private queue = new TurnQueue<Pending>((batch) => this.flush(batch));

  constructor(private deps: Pick<AppDeps, "db">) {}

  /** Runs `fn` in the next group transaction; resolves with its result once committed. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  private async flush(batch: Pending[]): Promise<void> {
    const { db } = this.deps;
    const values: unknown[] = [];
    try {
      // one body after another: they share the transaction's connection
      await db.tx(async () => {
        for (const p of batch) values.push(await p.fn());
      });
    } catch {
      // the group did not commit (nothing of it is stored): each body on its own
      for (const p of batch) {
        try {
          p.resolve(await db.tx(p.fn));
        } catch (err) {
          p.reject(err);
        }
      }
      return;
    }
    batch.forEach((p, i) => p.resolve(values[i]));
  }
}
