import type { AppDeps } from "../../deps.ts";
import { withGroup } from "../../db/group-memo.ts";
import { GroupCommit, type GroupKind } from "../../db/group-commit.ts";

/**
 * Outcome bodies share the group's reads and collected writes (db/group-memo.ts): a workspace's
 * webhooks are read once per group, and the group's events go to the cluster's log in one
 * statement at its end. A body publishes events, so there are no savepoints: any failure rolls
 * the whole group back (its events with it, unheard), and then every body runs alone.
 */
const outcomeGroups: GroupKind<void> = {
  open(body) {
    return withGroup((group) => body({ step: () => {}, wrote: () => true, keep: () => {}, drop: () => {}, end: () => group.writeCollected() }));
  },
  alone: (fn) =>
    withGroup(async (group) => {
      const value = await fn();
      await group.writeCollected();
      return value;
    }),
  single: true,
};

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
    this.groups = new GroupCommit(deps.db, outcomeGroups);
  }

  /** Runs `fn` in the next group transaction; resolves with its result once committed. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.groups.run(fn, { savepoint: false });
  }
}
