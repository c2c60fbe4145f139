import type { DB } from "../../db/store.ts";
import { withGroup } from "../../db/group-memo.ts";
import { TurnQueue } from "../../db/turn-queue.ts";

/**
 * What one inbound message's body tells its group: when it starts writing. Without a savepoint
 * a body must refuse (a repeat) before `writing()`; a failure after it rolls the whole group
 * back, and then each message is stored on its own.
 */
export class InboundStep {
  private began = false;

  writing(): void {
    this.began = true;
  }

  get wrote(): boolean {
    return this.began;
  }
}

interface Pending {
  fn: (step: InboundStep) => Promise<unknown>;
  savepoint: boolean;
  resolve(v: unknown): void;
  reject(err: unknown): void;
}

/**
 * Group commit of inbound messages. Storing a message (contact, conversation, message row,
 * webhook outbox rows, live events) is a handful of statements and one COMMIT; the messages
 * that arrive in the same turn of the event loop are stored in one transaction, one after
 * another in arrival order, so the COMMIT (and on PostgreSQL the write lock) is paid once per
 * group. Each message's promise resolves only after the group committed: a caller that answers
 * the network or a request after it still answers after its message is durable. A message
 * refused before it writes (a repeat) costs the others nothing; one that fails after writing
 * without a savepoint rolls the group back and every message of it is stored alone. Events
 * published by a body reach their listeners at the commit, and a body rolled back in its
 * savepoint takes its outbox rows and its events with it. Reads of rows no message writes (a
 * workspace's webhooks, automations, keywords) are made once per group, and the search index
 * takes the group's texts in one statement at its end (db/group-memo.ts).
 */
export class InboundBatcher {
  private queue = new TurnQueue<Pending>((batch) => this.flush(batch));

  constructor(private db: DB) {}

  /** Runs `fn` in the next group transaction; resolves with its result once committed. */
  run<T>(fn: (step: InboundStep) => Promise<T>, opts: { savepoint: boolean }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, savepoint: opts.savepoint, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  private async flush(batch: Pending[]): Promise<void> {
    const { db } = this;
    if (batch.length === 1) return this.alone(batch[0]!);
    const outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = [];
    try {
      await withGroup((group) =>
        db.tx(async () => {
          for (const p of batch) {
            const step = new InboundStep();
            const mark = group.mark();
            try {
              outcomes.push({ ok: true, value: p.savepoint ? await db.tx(() => p.fn(step)) : await p.fn(step) });
            } catch (err) {
              if (!p.savepoint && step.wrote) throw err; // partly written, and no savepoint to undo it
              group.dropFrom(mark);
              outcomes.push({ ok: false, err });
            }
          }
          await group.writeCollected();
        }),
      );
    } catch {
      // the group did not commit (nothing of it is stored): each message on its own
      for (const p of batch) await this.alone(p);
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.err);
    });
  }

  private async alone(p: Pending): Promise<void> {
    try {
      p.resolve(await this.db.tx(() => p.fn(new InboundStep())));
    } catch (err) {
      p.reject(err);
    }
  }
}
