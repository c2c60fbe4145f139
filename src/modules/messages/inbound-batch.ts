import type { DB } from "../../db/store.ts";
import { withGroup } from "../../db/group-memo.ts";
import { GroupCommit, type GroupKind } from "../../db/group-commit.ts";
import { InboundWants } from "./inbound-prefetch.ts";

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

/** Inbound messages share the group's reads and collected writes (db/group-memo.ts); each gets a step of its own. */
const inboundGroups = (wants?: InboundWants): GroupKind<InboundStep> => ({
  // on PostgreSQL (wants) the collected writes go out together: they write different tables
  open(body) {
    wants?.opened(); // synchronously, as the group's items leave the queue
    return withGroup((group) => {
      let mark = 0;
      return body({
        step: () => {
          mark = group.mark();
          return new InboundStep();
        },
        wrote: (step) => step.wrote,
        keep: () => {},
        drop: () => group.dropFrom(mark),
        end: () => (wants ? group.writeCollectedTogether() : group.writeCollected()),
      });
    });
  },
  alone: (fn) => fn(new InboundStep()),
  single: true,
});

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
 * takes the group's texts in one statement at its end (db/group-memo.ts). A text message's own
 * reads (is it a repeat, its sender's contact) are made for the whole group at its start
 * (`wants`, inbound-prefetch.ts), and its writes whose answer it does not need (the contact's
 * touch, the conversation's upsert, the message row) are sent without waiting for them. That is
 * done on PostgreSQL only, where every statement is a round trip: on SQLite a statement is a
 * call into the library, and the group's reads cost more than they save (measured).
 */
export class InboundBatcher {
  private groups: GroupCommit<InboundStep>;
  /** what the text messages queued for the next groups will read (PostgreSQL) */
  readonly wants: InboundWants | undefined;

  constructor(db: DB) {
    this.wants = db.engine === "postgres" ? new InboundWants() : undefined;
    this.groups = new GroupCommit(db, inboundGroups(this.wants));
  }

  /** Runs `fn` in the next group transaction; resolves with its result once committed. */
  run<T>(fn: (step: InboundStep) => Promise<T>, opts: { savepoint: boolean }): Promise<T> {
    return this.groups.run(fn, opts);
  }
}
