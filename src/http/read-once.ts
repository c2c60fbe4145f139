import type { Database, Statement } from "bun:sqlite";

const statements = new WeakMap<Database, { begin: Statement; commit: Statement }>();

/**
 * Runs synchronous reads in one read transaction when `together`: in WAL mode every
 * statement outside a transaction takes and drops the database's shared locks (system
 * calls), which cost more than a small lookup itself. Only for code that never awaits
 * (a transaction open across an await would take in other requests' statements). Inside
 * a transaction already open, or when not `together`, `fn` simply runs.
 */
export function readOnce<T>(sqlite: Database, together: boolean, fn: () => T): T {
  if (!together || sqlite.inTransaction) return fn();
  let s = statements.get(sqlite);
  if (!s) statements.set(sqlite, (s = { begin: sqlite.prepare("BEGIN DEFERRED"), commit: sqlite.prepare("COMMIT") }));
  s.begin.run();
  try {
    return fn();
  } finally {
    s.commit.run();
  }
}
