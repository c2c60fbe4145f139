import type { Database } from "bun:sqlite";
import { oncePer } from "../db/prepared.ts";

const statements = oncePer((sqlite: Database) => ({ begin: sqlite.prepare("BEGIN DEFERRED"), commit: sqlite.prepare("COMMIT") }));

/**
 * Runs synchronous reads in one read transaction when `together`: in WAL mode every
 * statement outside a transaction takes and drops the database's shared locks (system
 * calls), which cost more than a small lookup itself. Only for code that never awaits
 * (a transaction open across an await would take in other requests' statements). Inside
 * a transaction already open, or when not `together`, `fn` simply runs.
 */
export function readOnce<T>(sqlite: Database, together: boolean, fn: () => T): T {
  if (!together || sqlite.inTransaction) return fn();
  const s = statements(sqlite);
  s.begin.run();
  try {
    return fn();
  } finally {
    s.commit.run();
  }
}
