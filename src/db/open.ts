import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { mapWalIndex, unmapWalIndex } from "./wal-index.ts";

export type DB = BunSQLiteDatabase;

export interface OpenedDb {
  db: DB;
  sqlite: Database;
  close(): void;
}

/**
 * Opens SQLite with the pragmas Parley relies on.
 * WAL + synchronous=NORMAL: a commit is durable against a process crash (the WAL is in the
 * OS page cache); only a power loss can drop the last transactions. FULL is available.
 */
export function openDb(path: string, opts: { synchronous?: "normal" | "full" } = {}): OpenedDb {
  // before SQLite opens the file (see mapWalIndex: mapping it later would drop SQLite's locks)
  if (path !== ":memory:") mapWalIndex(path);
  let sqlite: Database;
  try {
    sqlite = new Database(path, { create: true, strict: true });
  } catch (err) {
    if (path !== ":memory:") unmapWalIndex(path);
    throw err;
  }
  // busy_timeout first: switching to WAL needs a lock another connection may hold
  sqlite.exec("PRAGMA busy_timeout = 5000");
  if (path !== ":memory:") sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec(`PRAGMA synchronous = ${opts.synchronous === "full" ? "FULL" : "NORMAL"}`);
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  writeLockFirst(sqlite);
  const db = drizzle({ client: sqlite });
  let closed = false;
  return {
    db,
    sqlite,
    close() {
      if (closed) return;
      closed = true;
      if (path !== ":memory:") {
        try {
          sqlite.exec("PRAGMA optimize");
          sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch {
          // closing anyway: a failed checkpoint leaves a valid WAL behind
        }
      }
      sqlite.close();
      if (path !== ":memory:") unmapWalIndex(path);
    },
  };
}

/**
 * Every transaction of the connection begins IMMEDIATE: it takes the write lock at BEGIN, where
 * SQLite's busy handler (busy_timeout) waits for another writer. A DEFERRED transaction that read
 * first and then writes is refused at once with SQLITE_BUSY ("database is locked") when another
 * connection holds the write lock or committed since its read: SQLite never waits there (it
 * could deadlock). The server's transactions read and then write (a row looked up, then
 * changed), and other processes use the same file: the operator commands that write, and any
 * connection, a reading one too, for the moment SQLite holds the write lock to read a WAL-index
 * header it caught mid-update (the pairing test's `parley pair` and `parley sim scan` only read
 * the data dir). A session's `connected` event handled at such a moment under load was lost that
 * way (a session stayed `qr_pending` after its phone linked). `transaction(fn)` and its
 * `.deferred` both run `.immediate` (drizzle's `db.transaction` calls `.deferred`); nested calls
 * are savepoints as before. Read-only transactions open their own `BEGIN DEFERRED`
 * (`src/http/read-once.ts`).
 */
function writeLockFirst(sqlite: Database): void {
  const native = sqlite.transaction.bind(sqlite);
  sqlite.transaction = ((fn: (...args: never[]) => unknown) => {
    const tx = native(fn);
    const run = (...args: never[]) => tx.immediate(...args);
    return Object.assign(run, { deferred: run, immediate: run, exclusive: tx.exclusive });
  }) as Database["transaction"];
}
