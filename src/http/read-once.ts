import type { Database } from "bun:sqlite";
import { oncePer } from "../db/prepared.ts";

const statements = oncePer((sqlite: Database) => ({ begin: sqlite.prepare("BEGIN DEFERRED"), commit: sqlite.prepare("COMMIT") }));
const noop = () => {};

/**
 * Runs synchronous reads in one read transaction when `together`: in WAL mode every
 * statement outside a transaction takes and drops the database's shared locks (system
 * calls), which cost more than a small lookup itself. The transaction opens at `enter()`,
 * which `fn` calls before its first statement: reads answered from memory open none. Only
 * for code that never awaits (a transaction open across an await would take in other
 * requests' statements). Inside a transaction already open, or when not `together`, `fn`
 * simply runs.
 */
export function readOnce<T>(sqlite: Database, together: boolean, fn: (enter: () => void) => T): T {
  if (!together || sqlite.inTransaction) return fn(noop);
  const s = statements(sqlite);
  let open = false;
  const enter = () => {
    if (open) return;
    s.begin.run();
    open = true;
  };
  try {
    return fn(enter);
  } finally {
    if (open) s.commit.run();
  }
}
