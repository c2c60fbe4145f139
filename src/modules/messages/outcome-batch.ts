import type { AppDeps } from "../../deps.ts";
import { withGroup } from "../../db/group-memo.ts";
import { GroupCommit, type GroupKind } from "../../db/group-commit.ts";

/**
 * Outcome bodies share the group's reads and collected writes (db/group-memo.ts): a workspace's
 * webhooks are read once per group, and the group's events go to the cluster's log in one
 * statement at its end. A body publishes events, so there are no savepoints: any failure rolls
 * the whole group back (its events with it, unheard), and then every body runs alone.
 *
 * PostgreSQL: a group of one outcome (the sender paced, one message at a time) runs as a group
 * too, so its `prepare` reads go out with BEGIN and the write lock; the collected writes go out
 * with the COMMIT, not waited for one by one (a failure makes the COMMIT answer ROLLBACK: the
 * group is rolled back and each body runs alone, waiting for its own writes).
 */
const outcomeGroups = (pipelined: boolean): GroupKind<void> => ({
  open(body) {
    return withGroup((group) =>
      body({
        step: () => {},
        wrote: () => true,
        keep: () => {},
        drop: () => {},
        end: pipelined ? async () => void group.writeCollectedTogether().catch(() => {}) : () => group.writeCollected(),
      }),
    );
  },
  alone: (fn) =>
    withGroup(async (group) => {
      const value = await fn();
      await group.writeCollected();
      return value;
    }),
  single: !pipelined,
});

/**
 * Group commit of send outcomes. A drained batch's transaction is mostly its COMMIT (the WAL
 * write of the rows and their indexes; on PostgreSQL the write lock and a round trip a
 * statement); the outcomes of the batches that finished in the same turn of the event loop
 * (one per session draining) commit together, in one `db.tx`, each with the claim of its
 * session's next batch. The outcome is committed before its caller goes on.
 */
export class OutcomeBatcher {
  private groups: GroupCommit<void>;

  constructor(deps: Pick<AppDeps, "db">) {
    this.groups = new GroupCommit(deps.db, outcomeGroups(deps.db.engine === "postgres"));
  }

  /**
   * Runs `fn` in the next group transaction; resolves with its result once committed.
   * `prepare` (PostgreSQL) starts, inside the group's transaction, reads `fn` will need: they go
   * out with BEGIN and the write lock. It is called before `fn`'s first run only: `fn` run again
   * alone (its group rolled back) reads for itself.
   */
  run<T>(fn: () => Promise<T>, prepare?: () => void): Promise<T> {
    return this.groups.run(fn, { savepoint: false, prepare });
  }
}
