import { AsyncLocalStorage } from "node:async_hooks";
import { Database, type SQLQueryBindings, type Statement as BunStatement } from "bun:sqlite";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import type { SQLWrapper } from "drizzle-orm";
import type { DB, RunResult, SqlParam, Statement, TxOptions } from "./store.ts";
import { ThreadWriteLock } from "./thread-lock.ts";
import { TxFrame } from "./tx-frame.ts";
import { mapWalIndex, unmapWalIndex } from "./wal-index.ts";

export interface SqliteStore {
  db: DB;
  /** the connection, for SQLite-only machinery in src/db (checkpointer, snapshot memo, backup) */
  sqlite: Database;
}

type Params = SQLQueryBindings[];

const connections = new WeakMap<object, { sqlite: Database; threadLock: () => ThreadWriteLock; free: () => boolean; held: () => boolean }>();

/**
 * The SQLite connection of a store when no transaction holds it right now, else null (and
 * always null on PostgreSQL): for the few hot reads that read it synchronously, in the same
 * turn of the event loop, with a fallback through the store (see http/auth-guard.ts).
 */
export function idleSqlite(db: DB): Database | null {
  const c = connections.get(db);
  return c && c.free() ? c.sqlite : null;
}

/**
 * The SQLite connection of a store when the calling async context holds its transaction (inside
 * `db.tx`), else null (and always null on PostgreSQL): a statement run on it now is the one the
 * store would run after an await, in the same transaction. For the hottest writes of a group
 * commit, which then need no microtask hop per statement.
 */
export function heldSqlite(db: DB): Database | null {
  const c = connections.get(db);
  return c && c.held() ? c.sqlite : null;
}

/**
 * For a worker thread of this process about to write the store's file through a connection of
 * its own: the file and the lock both sides take first (thread-lock.ts). Null on PostgreSQL and
 * for a database in memory (another connection cannot open it).
 */
export function threadWriteLock(db: DB): { path: string; lock: ThreadWriteLock } | null {
  const c = connections.get(db);
  const path = c?.sqlite.filename;
  if (!c || !path || path === ":memory:") return null;
  return { path, lock: c.threadLock() };
}

/** The SQLite connection of a store whatever its state (backup, checkpoints), or null on PostgreSQL. */
export function sqliteOf(db: DB): Database | null {
  return connections.get(db)?.sqlite ?? null;
}
const CACHE = 1_000;

/**
 * The SQLite engine: one bun:sqlite connection in WAL mode behind the asynchronous store.
 * A transaction holds the connection across its awaits, so a statement of any other async
 * context waits for its commit (the connection would otherwise take it into the open
 * transaction); with no transaction open, a statement runs at once. Transactions begin
 * IMMEDIATE (the write lock at BEGIN, where busy_timeout waits for another process): a deferred
 * read-then-write transaction is refused at once with SQLITE_BUSY when an operator command's
 * process holds the lock, and SQLite never waits there.
 * WAL + synchronous=NORMAL: a commit survives a process crash (the WAL is in the OS page
 * cache); only a power loss can drop the last transactions. FULL is available.
 */
export function openSqliteStore(
  path: string,
  opts: { synchronous?: "normal" | "full"; onError?: (err: unknown) => void; readonly?: boolean } = {},
): SqliteStore {
  const memory = path === ":memory:";
  // a read-only connection (an operator command reading beside a live server) maps nothing and
  // changes nothing: no pragmas that write, no checkpoint at close
  const mapped = !memory && !opts.readonly;
  // before SQLite opens the file (see mapWalIndex: mapping it later would drop SQLite's locks)
  if (mapped) mapWalIndex(path);
  let sqlite: Database;
  try {
    sqlite = opts.readonly ? new Database(path, { readonly: true, strict: true }) : new Database(path, { create: true, strict: true });
  } catch (err) {
    if (mapped) unmapWalIndex(path);
    throw err;
  }
  // busy_timeout first: switching to WAL needs a lock another connection may hold
  sqlite.exec("PRAGMA busy_timeout = 5000");
  if (mapped) sqlite.exec("PRAGMA journal_mode = WAL");
  if (!opts.readonly) {
    sqlite.exec(`PRAGMA synchronous = ${opts.synchronous === "full" ? "FULL" : "NORMAL"}`);
    sqlite.exec("PRAGMA foreign_keys = ON");
  }
  sqlite.exec("PRAGMA temp_store = MEMORY");
  // every statement made, finalized at close: one left open keeps the connection (and its -wal and -shm files)
  const made = new Set<BunStatement>();
  const prepareOn = (text: string): BunStatement => {
    const st = sqlite.prepare(text);
    made.add(st);
    return st;
  };

  /** made when the first worker thread that writes or checkpoints this file starts (threadWriteLock); transactions take it from then on */
  let threads: ThreadWriteLock | null = null;
  const onError = opts.onError ?? ((err) => console.error("after-commit callback failed", err));
  const als = new AsyncLocalStorage<TxFrame<Database>>();
  let owner: TxFrame<Database> | null = null;
  let waiters: (() => void)[] = [];
  const mayRun = () => owner === null || als.getStore() === owner;
  const turn = async () => {
    while (!mayRun()) await new Promise<void>((r) => waiters.push(r));
  };
  const release = () => {
    owner = null;
    const w = waiters;
    waiters = [];
    for (const r of w) r();
  };

  // drizzle's SQL varies little (IN lists of other lengths): a bounded cache of compiled statements
  const cache = new Map<string, BunStatement>();
  const compiled = (text: string): BunStatement => {
    let s = cache.get(text);
    if (s) return s;
    if (cache.size >= CACHE) {
      const [oldest, stmt] = cache.entries().next().value as [string, BunStatement];
      cache.delete(oldest);
      made.delete(stmt);
      stmt.finalize();
    }
    cache.set(text, (s = prepareOn(text)));
    return s;
  };

  const db = drizzle(async (text, params, method) => {
    if (!mayRun()) await turn();
    // a write outside a transaction takes the thread lock like a transaction (see tx)
    if (method === "run" && threads && owner === null) return tx(async () => runQuery(text, params, method));
    return runQuery(text, params, method);
  }) as unknown as DB & Record<string, unknown>;
  function runQuery(text: string, params: unknown[], method: string): { rows: unknown[] } {
    const stmt = compiled(text);
    if (method === "run") return { rows: [], changes: stmt.run(...(params as Params)).changes } as { rows: unknown[] };
    const rows = stmt.values(...(params as Params));
    return { rows: method === "get" ? (rows[0] as unknown as unknown[]) : rows };
  }

  const begin = prepareOn("BEGIN IMMEDIATE");
  const commit = prepareOn("COMMIT");
  const rollback = prepareOn("ROLLBACK");

  async function tx<T>(body: () => Promise<T>, opts?: TxOptions): Promise<T> {
    // TxOptions.first: nothing to send ahead on SQLite, it is simply called first
    const first = opts?.first;
    const fn = first ? () => (first(), body()) : body;
    const frame = als.getStore();
    if (frame && frame === owner) {
      const name = `sp${++frame.depth}`;
      const mark = frame.mark();
      // through the statement cache: a savepoint per event is common (the bus's subscribers)
      compiled(`SAVEPOINT ${name}`).run();
      try {
        const result = await fn();
        compiled(`RELEASE ${name}`).run();
        return result;
      } catch (err) {
        compiled(`ROLLBACK TO ${name}`).run();
        compiled(`RELEASE ${name}`).run();
        frame.dropFrom(mark);
        throw err;
      } finally {
        frame.depth--;
      }
    }
    while (owner !== null) await new Promise<void>((r) => waiters.push(r));
    const f = new TxFrame(sqlite, onError);
    owner = f;
    // a worker thread writing the file too: its lock first, waited for without blocking (thread-lock.ts)
    const lock = threads;
    if (lock && !lock.tryTake()) await lock.take();
    let result: T;
    try {
      begin.run();
      try {
        result = await als.run(f, fn);
        commit.run();
      } catch (err) {
        if (sqlite.inTransaction) rollback.run();
        f.abandoned();
        throw err;
      }
    } finally {
      lock?.release();
      release();
    }
    f.committed();
    return result;
  }

  const statement = <Row>(text: string, shared = false): Statement<Row> => {
    let s: BunStatement | undefined;
    const get = () => (shared ? compiled(text) : (s ??= prepareOn(text)));
    return {
      async all(...params: SqlParam[]) {
        if (!mayRun()) await turn();
        return get().all(...(params as Params)) as Row[];
      },
      async get(...params: SqlParam[]) {
        if (!mayRun()) await turn();
        return (get().get(...(params as Params)) as Row | null) ?? undefined;
      },
      async run(...params: SqlParam[]): Promise<RunResult> {
        if (!mayRun()) await turn();
        if (threads && owner === null) return tx(async () => ({ changes: get().run(...(params as Params)).changes }));
        return { changes: get().run(...(params as Params)).changes };
      },
    };
  };
  const raw = (q: SQLWrapper | string) => {
    if (typeof q === "string") return { sql: q, params: [] as SqlParam[] };
    const built = (db as unknown as { dialect: { sqlToQuery(s: unknown): { sql: string; params: SqlParam[] } } }).dialect.sqlToQuery(q.getSQL());
    return built;
  };

  const shut = () => {
    for (const st of made) st.finalize();
    made.clear();
    cache.clear();
    if (mapped) {
      try {
        sqlite.exec("PRAGMA optimize");
        sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } catch {
        // closing anyway: a failed checkpoint leaves a valid WAL behind
      }
    }
    sqlite.close();
    if (mapped) unmapWalIndex(path);
  };
  const prepared = new Map<string, Statement<unknown>>();
  let closed = false;
  connections.set(db, { sqlite, threadLock: () => (threads ??= new ThreadWriteLock()), free: () => owner === null, held: () => owner !== null && als.getStore() === owner });
  Object.assign(db, {
    engine: "sqlite",
    prepare<Row>(text: string): Statement<Row> {
      let s = prepared.get(text);
      if (!s) prepared.set(text, (s = statement(text)));
      return s as Statement<Row>;
    },
    async exec(text: string) {
      if (!mayRun()) await turn();
      sqlite.exec(text);
    },
    tx,
    transaction() {
      throw new Error("use db.tx(fn): the store's one transaction API");
    },
    afterCommit(fn: () => void) {
      const frame = als.getStore();
      if (frame && frame === owner) frame.afterCommit(fn);
      else fn();
    },
    async all(q: SQLWrapper | string) {
      const { sql, params } = raw(q);
      return statement(sql, true).all(...params);
    },
    async get(q: SQLWrapper | string) {
      const { sql, params } = raw(q);
      return statement(sql, true).get(...params);
    },
    async run(q: SQLWrapper | string) {
      const { sql, params } = raw(q);
      return statement(sql, true).run(...params);
    },
    close(): Promise<void> {
      if (closed) return Promise.resolve();
      closed = true;
      // at once when no transaction holds the connection (the common case: callers may go on as if closed)
      if (mayRun()) {
        shut();
        return Promise.resolve();
      }
      return turn().then(shut);
    },
  });
  Object.defineProperty(db, "inTx", { get: () => owner !== null && als.getStore() === owner });
  return { db, sqlite };
}
