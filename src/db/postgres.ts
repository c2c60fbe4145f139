import { AsyncLocalStorage } from "node:async_hooks";
import postgres from "postgres";
import type { SQLWrapper } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { PgDeleteBase, PgInsertBase, PgSelectBase, PgUpdateBase } from "drizzle-orm/pg-core";
import { PostgresJsPreparedQuery } from "drizzle-orm/postgres-js/session";
import { numberedPlaceholders, type ChainedTx, type DB, type RunResult, type SqlParam, type Statement, type StoreCounts, type TxOptions } from "./store.ts";
import { CACHED_TABLES, readCache } from "./read-cache.ts";
import { tableWrites } from "./table-writes.ts";
import { TxFrame } from "./tx-frame.ts";
import { BunPgSocket } from "./pg-socket.ts";

type Sql = postgres.Sql;
type Query = postgres.PendingQuery<postgres.Row[]>;
/** Where a statement goes: the pool, or the connection a transaction holds. */
interface Conn {
  unsafe(text: string, params?: postgres.ParameterOrJSON<never>[], opts?: postgres.UnsafeQueryOptions): Query;
}
/** The parts of postgres.js's connection object a reserved transaction looks at. */
interface PgConnection {
  reserved: unknown;
}

/** Every write transaction takes this transaction-level advisory lock first (see `tx`). */
export const WRITE_LOCK = 7_049_523_108_962_161; // "parley" as a number

export interface PostgresOptions {
  /** connections in the pool (default 10) */
  max?: number;
  onError?: (err: unknown) => void;
  /** postgres.js on Bun's own TCP socket (default; not with TLS): node:net's costs most of its CPU per statement (pg-socket.ts) */
  bunSocket?: boolean;
}

/**
 * The PostgreSQL engine: postgres.js under drizzle's Postgres dialect, behind the same
 * asynchronous store as SQLite. The tables are declared once (drizzle's SQLite column types);
 * on PostgreSQL integers are `bigint` (millisecond times) and booleans stay 0/1, so raw SQL
 * and results read the same on both engines. `bigint` and `numeric` results (counts, sums)
 * arrive as JavaScript numbers.
 *
 * A transaction takes one pooled connection for its whole run, and every statement of its
 * async context goes there (an AsyncLocalStorage frame). Every transaction first takes one
 * advisory lock, so write transactions run one at a time, as on SQLite: a read-then-write in
 * a transaction never races another one, on any node of a cluster (a transaction whose writes
 * are fenced row by row may go without it: `TxOptions.rowLocked`). Reads outside a transaction
 * run in parallel on the pool.
 */
export function openPostgresStore(url: string, opts: PostgresOptions = {}): { db: DB; sql: Sql } {
  installBuilderMethods();
  const toNumber = { to: 20, from: [20, 1700], parse: (x: string) => Number(x), serialize: (x: unknown) => String(x) };
  const root = postgres(url, {
    max: opts.max ?? 10,
    prepare: true,
    // fetch_types stays on, though no statement binds or returns a JavaScript array: with it off,
    // postgres.js (3.4.9) never answers a reserve() that had to open a connection (its start-up
    // returns before serving the waiting queue), so the first transaction after a lost
    // connection waited for ever (test/db/postgres-tx.test.ts, "connection is cut")
    onnotice: () => {},
    types: { bigint: toNumber } as unknown as Record<string, postgres.PostgresType>,
    connection: { application_name: "parley" },
  });
  const counts: StoreCounts = { statements: 0, roundTrips: 0, transactions: 0 };
  const pool: Conn = {
    unsafe(text, params, o) {
      counts.statements++;
      counts.roundTrips++;
      return root.unsafe(text, params, o) as Query;
    },
  };
  const parsed = root.options as unknown as { ssl: unknown; host: string[]; socket?: unknown };
  // one host only: with several (`postgres://a,b/db`) postgres.js tries them in turn on its own socket
  if ((opts.bunSocket ?? process.env.PARLEY_PG_SOCKET !== "node") && !parsed.ssl && parsed.host.length === 1) {
    // read when a connection opens: every connection of the pool, reconnections included
    parsed.socket = (o: { host: string[]; port: number[]; path?: string | false }) => BunPgSocket.open({ host: o.host[0]!, port: o.port[0]!, path: o.path });
  }
  const onError = opts.onError ?? ((err) => console.error("after-commit callback failed", err));
  const als = new AsyncLocalStorage<TxFrame<Conn>>();
  const live = () => {
    const f = als.getStore();
    return f?.open ? f : undefined;
  };
  const current = (): Conn => live()?.conn ?? pool;
  // a write to a table some in-memory cache watches (read-cache.ts) is reported once durable:
  // after its statement, or at the commit of its transaction (nothing on rollback)
  let writes: ReturnType<typeof tableWrites> | undefined;
  const watched = <Q extends { values(): Promise<unknown>; then: Promise<unknown>["then"] }>(text: string, q: Q): Q => {
    const tables = writes!.written(text);
    if (tables.length === 0) return q;
    const frame = live();
    const done = () => (frame ? frame.afterCommit(() => writes!.committed(tables, text)) : writes!.committed(tables, text));
    const after = <R>(r: R): R => (done(), r);
    // drizzle awaits the query or its `.values()`: both report once the statement answered
    return {
      values: () => q.values().then(after),
      then: (ok?: (r: unknown) => unknown, fail?: (e: unknown) => unknown) => q.then(after).then(ok, fail),
    } as unknown as Q;
  };
  // drizzle calls `unsafe`; the statement goes to the transaction of the caller's context
  const client = {
    options: root.options,
    unsafe: (text: string, params?: unknown[], _o?: unknown) => watched(text, current().unsafe(text, params ? normalise(params) : undefined, { prepare: true })),
    begin() {
      throw new Error("use db.tx(fn): the store's one transaction API");
    },
  };
  const db = drizzle({ client: client as unknown as Sql }) as unknown as DB & Record<string, unknown>;

  let closed = false;
  // transactions under way: the store's close waits for them (see `close`)
  const inflight = new Set<Promise<unknown>>();
  async function tx<T>(fn: () => Promise<T>, opts?: TxOptions): Promise<T> {
    const frame = live();
    if (frame) {
      if (!opts?.first) return savepoint(frame, fn);
      const first = opts.first;
      return savepoint(frame, () => (first(), fn()));
    }
    if (closed) throw Object.assign(new Error("the store is closed"), { code: "CONNECTION_ENDED" });
    return tracked(outermost(fn, opts));
  }

  /** A transaction under way, waited for by the store's close. */
  function tracked<T>(run: Promise<T>): Promise<T> {
    inflight.add(run);
    const done = () => void inflight.delete(run);
    run.then(done, done);
    return run;
  }

  /**
   * A nested `tx`: a savepoint, sent with the first statement of `fn` (pipelined: PostgreSQL
   * runs a connection's statements in order). One that succeeded is not released: it ends with
   * the transaction, one round trip less.
   */
  async function savepoint<T>(frame: TxFrame<Conn>, fn: () => Promise<T>): Promise<T> {
    const mark = frame.mark();
    const name = `s${frame.depth++}`;
    const conn = frame.conn;
    const sp = pipelined(conn.unsafe(`SAVEPOINT ${name}`));
    try {
      const result = await fn();
      await sp;
      return result;
    } catch (err) {
      frame.dropFrom(mark);
      await sp.catch(() => {});
      await conn.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    }
  }

  /** A statement sent without waiting for its answer (the next one goes in the same flight). */
  function pipelined(q: Query): Promise<unknown> {
    counts.roundTrips--;
    const p = Promise.resolve(q.execute());
    p.catch(() => {});
    return p;
  }

  /**
   * One reserved connection for the whole transaction; BEGIN and the write lock go out together
   * (one round trip before the first statement, not two). postgres.js leaves two cases of a
   * reserved connection to its user, both handled here:
   * - it dropped during the transaction: the pool already took it back (its `reserved` mark is
   *   gone); a statement sent on it then would write to a closed socket, so none is, and it is
   *   not released (that would put a closed connection among the open ones);
   * - the pool's `end()` does not end a reserved connection once released: the store's close
   *   waits for the transactions under way first (`close`).
   */
  async function outermost<T>(fn: () => Promise<T>, opts?: TxOptions, handed?: postgres.ReservedSql): Promise<T> {
    counts.transactions++;
    const first = opts?.first;
    const rowLocked = opts?.rowLocked === true;
    // a chained transaction (TxOptions.committing) starts on the connection handed to it, at once
    const reserved = handed ?? (await root.reserve());
    // the connection went on to the transaction chained behind this one's COMMIT: it releases it
    let handedOn = false;
    let pg: PgConnection | undefined;
    let mark: unknown;
    const alive = () => pg !== undefined && pg.reserved === mark;
    const conn: Conn = {
      unsafe(text, params, o) {
        if (pg && !alive()) return refused() as Query;
        counts.statements++;
        counts.roundTrips++;
        // handed to the connection now, in the order the transaction makes its statements (not
        // when awaited): a write sent without waiting for its answer (group-memo.ts groupDefer)
        // runs before every statement made after it
        return (reserved.unsafe(text, params, o) as Query).execute() as Query;
      },
    };
    const f = new TxFrame<Conn>(conn, onError);
    let result: T;
    try {
      const begin = conn.unsafe("BEGIN", [], {
        onexecute: (c: PgConnection) => {
          pg = c;
          mark = c.reserved;
          return true; // the lock goes out at once, behind it
        },
      } as postgres.UnsafeQueryOptions);
      // TxOptions.rowLocked: no lock, and no wait for BEGIN either: the first statement goes
      // out behind it (its answer is checked before the COMMIT)
      const begun = pipelined(begin);
      const lock = rowLocked ? undefined : conn.unsafe(`SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
      // chained: the lock's answer comes back in the flight of the COMMIT before, no wait of its own
      if (handed) counts.roundTrips--;
      const locked = lock ? Promise.all([begun, lock]) : Promise.resolve();
      if (first) {
        // the statements `first` starts go out behind the lock (TxOptions.first); a failure of
        // the lock fails them too, and they are answered to whoever awaits them
        locked.catch(() => {});
        als.run(f, first);
      }
      await locked;
      result = await als.run(f, fn);
      f.open = false;
      await begun;
      // COMMIT of a transaction a failed statement aborted answers ROLLBACK: not a commit
      const commit = conn.unsafe("COMMIT");
      if (opts?.committing && !closed && alive()) {
        const chained: ChainedTx = (next, o) => {
          if (handedOn) throw new Error("a transaction hands its connection on once");
          handedOn = true;
          return tracked(outermost(next, o, reserved));
        };
        try {
          opts.committing(chained);
        } catch (err) {
          onError(err);
        }
      }
      const end = await commit;
      if (end.command !== "COMMIT") throw Object.assign(new Error("the transaction was rolled back: one of its statements failed"), { code: "25P02" });
    } catch (err) {
      f.abandoned();
      // the COMMIT ended the transaction either way, and the connection belongs to the next one:
      // a ROLLBACK sent now would end that one
      if (handedOn) throw err;
      // whatever failed (a statement, the lock, the commit), the connection goes back with no transaction open
      if (alive()) await conn.unsafe("ROLLBACK").catch(() => {});
      if (alive() || !pg) reserved.release();
      throw err;
    }
    if (!handedOn) reserved.release();
    f.committed();
    return result;
  }

  const statement = <Row>(text: string): Statement<Row> => {
    const numbered = quoteCamelAliases(numberedPlaceholders(text));
    const q = (params: SqlParam[]) => watched(numbered, current().unsafe(numbered, normalise(params), { prepare: true }));
    return {
      async all(...params: SqlParam[]) {
        return (await q(params)) as unknown as Row[];
      },
      async get(...params: SqlParam[]) {
        return (await q(params))[0] as Row | undefined;
      },
      async run(...params: SqlParam[]): Promise<RunResult> {
        return { changes: (await q(params)).count };
      },
    };
  };
  // raw SQL of every form names its camelCase result columns as `prepare` does (drizzle's own aliases are quoted already)
  const raw = (w: SQLWrapper | string) => {
    if (typeof w === "string") return watched(w, current().unsafe(quoteCamelAliases(w), [], { prepare: true }));
    const built = (db as unknown as { dialect: { sqlToQuery(s: unknown): { sql: string; params: unknown[] } } }).dialect.sqlToQuery(w.getSQL());
    return watched(built.sql, current().unsafe(quoteCamelAliases(built.sql), normalise(built.params), { prepare: true }));
  };

  const prepared = new Map<string, Statement<unknown>>();
  Object.assign(db, {
    engine: "postgres",
    prepare<Row>(text: string): Statement<Row> {
      let s = prepared.get(text);
      if (!s) prepared.set(text, (s = statement(text)));
      return s as Statement<Row>;
    },
    async exec(text: string) {
      await watched(text, current().unsafe(text));
    },
    tx,
    transaction() {
      throw new Error("use db.tx(fn): the store's one transaction API");
    },
    afterCommit(fn: () => void) {
      const frame = live();
      if (frame) frame.afterCommit(fn);
      else fn();
    },
    async all(w: SQLWrapper | string) {
      return [...(await raw(w))];
    },
    async get(w: SQLWrapper | string) {
      return (await raw(w))[0];
    },
    async run(w: SQLWrapper | string): Promise<RunResult> {
      return { changes: (await raw(w)).count };
    },
    async close() {
      if (closed) return;
      closed = true;
      // a reserved connection released after `end()` began is never ended (postgres.js): the
      // transactions under way finish first (new ones are refused)
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => (timer = setTimeout(r, 5_000)))]);
      clearTimeout(timer);
      await root.end({ timeout: 5 });
    },
  });
  Object.defineProperty(db, "inTx", { get: () => live() !== undefined });
  Object.defineProperty(db, "counts", { get: () => ({ ...counts }) });
  writes = tableWrites(db);
  // every process announces its changes to the rows the request guard keeps (read-cache.ts)
  readCache(db).watch(db, CACHED_TABLES);
  return { db, sql: root };
}

/**
 * PostgreSQL folds unquoted names to lower case: `AS sessionId` would answer `sessionid`. Raw
 * statements name their result columns in camelCase as on SQLite, so such aliases are quoted.
 */
export function quoteCamelAliases(sql: string): string {
  return sql.replace(/\bAS\s+([a-z][a-z0-9]*[A-Z]\w*)\b/g, 'AS "$1"');
}

/** What a statement on a lost transaction connection answers: refused, never sent. */
function refused(): unknown {
  const err = Object.assign(new Error("the transaction's connection to PostgreSQL was lost"), { code: "CONNECTION_CLOSED" });
  const p = Promise.reject(err);
  p.catch(() => {});
  return { values: () => p, execute: () => p, then: p.then.bind(p), catch: p.catch.bind(p) };
}

/** Booleans are stored as 0/1 (as on SQLite); a Uint8Array goes as a Buffer (bytea). */
function normalise(params: unknown[]): postgres.ParameterOrJSON<never>[] {
  return params.map((p) => (p === true ? 1 : p === false ? 0 : p === undefined ? null : p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p) : p)) as never;
}

let installed = false;
/**
 * SQLite's builders answer `.all()`, `.get()` and `.run()`; drizzle's Postgres builders only
 * `execute()`. The same methods on the Postgres builders keep repositories engine-blind.
 */
function installBuilderMethods(): void {
  if (installed) return;
  installed = true;
  for (const Builder of [PgSelectBase, PgInsertBase, PgUpdateBase, PgDeleteBase] as unknown as { prototype: Record<string, unknown> }[]) {
    Object.assign(Builder.prototype, {
      all(this: { execute(): Promise<unknown[]> }) {
        return this.execute();
      },
      async get(this: { execute(): Promise<unknown[]> }) {
        return (await this.execute())[0];
      },
      async run(this: { execute(): Promise<{ count?: number; length: number }> }) {
        const r = await this.execute();
        return { changes: r.count ?? r.length };
      },
    });
  }
  const Prepared = PostgresJsPreparedQuery.prototype as unknown as Record<string, unknown>;
  Object.assign(Prepared, {
    all(this: { execute(v?: unknown): Promise<unknown[]> }, values?: unknown) {
      return this.execute(values);
    },
    async get(this: { execute(v?: unknown): Promise<unknown[]> }, values?: unknown) {
      return (await this.execute(values))[0];
    },
    async run(this: { execute(v?: unknown): Promise<{ count?: number; length: number }> }, values?: unknown) {
      const r = await this.execute(values);
      return { changes: r.count ?? r.length };
    },
  });
}
