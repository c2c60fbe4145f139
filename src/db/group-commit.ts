import type { ChainedTx, DB } from "./store.ts";
import { TurnQueue } from "./turn-queue.ts";

/**
 * What the items of one group share, for one kind of group commit (sends, inbound messages):
 * the step each item's body gets, and how an item's share of the group is kept or taken back.
 */
export interface GroupItems<S> {
  /** The step the next item's body gets (called just before it runs). */
  step(): S;
  /** Whether the item of `step` started writing: without a savepoint it can no longer fail alone. */
  wrote(step: S): boolean;
  /** The item of `step` succeeded: keep what it added to the group. */
  keep(step: S): void;
  /** The item of `step` failed (refused before writing, or rolled back in its savepoint): take back what it added. */
  drop(step: S): void;
  /** Last, inside the group's transaction: the writes the items left for the group's end. */
  end(): Promise<void>;
}

/** One kind of group commit: how a group's shared state is made, and how one item runs alone. */
export interface GroupKind<S> {
  /** Runs `body` (the group's transaction) with the shared state of a new group. */
  open<T>(body: (items: GroupItems<S>) => Promise<T>): Promise<T>;
  /** One item as a group of its own, inside its own transaction (already open). */
  alone<T>(fn: (step: S) => Promise<T>): Promise<T>;
  /** Whether a batch of one item runs alone, without the group's bookkeeping. */
  single: boolean;
}

/** How one item joins a group. */
export interface GroupRunOptions<S> {
  /** whether the item runs in a savepoint of its own (it can then fail alone after writing) */
  savepoint: boolean;
  /**
   * Called for every item of a group, in order, inside the group's transaction before the first
   * item runs, with a step of its own (`step()`): it may start reads the item will need without
   * waiting for them. On PostgreSQL they go out together with BEGIN and the write lock
   * (`TxOptions.first`): no round trip of their own. Not called when the item runs alone.
   */
  prepare?: (step: S) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/** A group whose transaction is under way, and the group chained behind its COMMIT, once started. */
interface Started {
  batch: Pending<unknown>[];
  outcomes: Outcome[];
  run: Promise<unknown>;
  next?: Started;
}

interface Pending<S> {
  fn: (step: S) => Promise<unknown>;
  savepoint: boolean;
  prepare?: (step: S) => void;
  resolve(v: unknown): void;
  reject(err: unknown): void;
}

/**
 * Group commit: the items queued in one turn of the event loop run one after another in one
 * transaction, in order, and each item's promise settles only after the group committed. An
 * item refused before it writes, or one in a savepoint of its own, fails alone and the others
 * still commit. One that fails after writing without a savepoint rolls the whole group back;
 * then every item of it runs alone, in its own transaction.
 */
export class GroupCommit<S> {
  private queue = new TurnQueue<Pending<S>>((batch) => this.flush(batch));

  constructor(
    private db: DB,
    private kind: GroupKind<S>,
    /**
     * PostgreSQL: each group's transaction is chained behind the COMMIT of the one before it
     * (TxOptions.committing) when sends arrived meanwhile: the next group takes them as its batch
     * at that moment, and its BEGIN, write lock and reads go out on the same connection right
     * behind that COMMIT; the items that arrive while it waits for its lock and reads join it
     * after its last item (once). No effect on SQLite.
     */
    private chain = false,
  ) {}

  /** Runs `fn` in the next group transaction; resolves with its result once committed. */
  run<T>(fn: (step: S) => Promise<T>, opts: GroupRunOptions<S>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, savepoint: opts.savepoint, prepare: opts.prepare, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  /** One batch, then (chained) every batch started behind its predecessor's COMMIT, in turn. */
  private async flush(batch: Pending<S>[]): Promise<void> {
    if (this.kind.single && batch.length === 1) return this.alone(batch[0]!);
    let group: Started | undefined = this.start(batch, (fn, o) => this.db.tx(fn, o));
    while (group) group = await this.finish(group);
  }

  /**
   * Starts a batch's group transaction with `tx` (the store's, or the one chained behind the
   * COMMIT before). Its items run one after another; what each answered is kept for `finish`.
   */
  private start(batch: Pending<S>[], tx: ChainedTx): Started {
    const { db, kind } = this;
    const outcomes: Outcome[] = [];
    // the items' prepares run first in the transaction (on PostgreSQL their reads go out with the lock)
    const prepared = batch.some((p) => p.prepare);
    const started: Started = { batch: batch as Pending<unknown>[], outcomes, run: Promise.resolve() };
    const committing = this.chain
      ? (next: ChainedTx) => {
          const more = this.queue.take();
          if (more.length) started.next = this.start(more, next);
        }
      : undefined;
    started.run = kind.open((items) => {
      const first = () => {
        for (const p of batch) p.prepare?.(items.step());
      };
      return tx(async () => {
        // chained: the items that arrived while this group waited for its lock and reads join it,
        // once, after the last of its own (their prepares then, with no read for a key it knows)
        let late = this.chain;
        for (let i = 0; i < batch.length; i++) {
          const p = batch[i]!;
          const step = items.step();
          try {
            outcomes.push({ ok: true, value: p.savepoint ? await db.tx(() => p.fn(step)) : await p.fn(step) });
            items.keep(step);
          } catch (err) {
            if (!p.savepoint && items.wrote(step)) throw err; // partly written, and no savepoint to undo it
            items.drop(step);
            outcomes.push({ ok: false, err });
          }
          if (late && i === batch.length - 1) {
            late = false;
            for (const q of this.queue.take()) {
              q.prepare?.(items.step());
              batch.push(q);
            }
          }
        }
        await items.end();
      }, prepared || committing ? { first: prepared ? first : undefined, committing } : undefined);
    });
    started.run.catch(() => {}); // awaited by `finish`
    return started;
  }

  /** Settles a started group's items once its transaction ended; the group chained behind it, if any. */
  private async finish(group: Started): Promise<Started | undefined> {
    const batch = group.batch as Pending<S>[];
    try {
      await group.run;
    } catch {
      // the group did not commit (nothing of it is stored): each item on its own
      for (const p of batch) await this.alone(p);
      return group.next;
    }
    batch.forEach((p, i) => {
      const o = group.outcomes[i]!;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.err);
    });
    return group.next;
  }

  private async alone(p: Pending<S>): Promise<void> {
    try {
      p.resolve(await this.db.tx(() => this.kind.alone(p.fn)));
    } catch (err) {
      p.reject(err);
    }
  }
}
