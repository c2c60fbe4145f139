import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";

/** The database engines Parley runs on: SQLite in the data dir (the default) or PostgreSQL. */
export type Engine = "sqlite" | "postgres";

/** A value bound to a `?` of a raw statement. Booleans are stored as 0/1 on both engines. */
export type SqlParam = string | number | boolean | null | Uint8Array;

/** What a write reports: the rows it changed. */
export interface RunResult {
  changes: number;
}

/** A raw SQL statement with `?` placeholders, prepared once per store and reused. */
export interface Statement<Row = Record<string, unknown>> {
  all(...params: SqlParam[]): Promise<Row[]>;
  get(...params: SqlParam[]): Promise<Row | undefined>;
  run(...params: SqlParam[]): Promise<RunResult>;
}

/** What the PostgreSQL store sent so far (for measuring round trips). */
export interface StoreCounts {
  /** statements sent, BEGIN, COMMIT, the write lock and savepoints included */
  statements: number;
  /** waits for an answer: a statement sent in the same flight as the next one adds none */
  roundTrips: number;
  /** outermost transactions begun */
  transactions: number;
}

/** drizzle's query builder, typed once for both engines (the tables are declared once). */
export type QueryBuilder = BaseSQLiteDatabase<"async", RunResult>;

/** Options of one `tx` call. */
export interface TxOptions {
  /**
   * Called inside the transaction, synchronously, before `fn`. Statements it starts without
   * waiting for them (reads `fn` will need) go out on PostgreSQL together with BEGIN and the
   * write lock, before the lock is granted, and run as soon as it is: a round trip less than
   * from `fn`. On SQLite (and in a nested `tx`) it is simply called first.
   */
  first?: () => void;
  /**
   * PostgreSQL: the transaction does not take the store-wide write lock; it runs beside the
   * write transactions instead of waiting its turn behind them. Only for a transaction whose
   * every write is fenced by the rows it names (an UPDATE that re-checks its own condition on
   * the row it changes, so two such transactions, on any node, cannot both take one row), that
   * reads nothing another write transaction must not change under it, and that writes no table
   * whose order the lock keeps (the cluster's event log) and publishes no event. SQLite has one
   * writer at a time anyway: there it is ignored.
   */
  rowLocked?: boolean;
  /**
   * PostgreSQL: called once, when the transaction's COMMIT has been handed to its connection and
   * before its answer (never when the transaction failed before its COMMIT; never on SQLite). A
   * transaction started with `next` runs on the same connection: its BEGIN, write lock and
   * `first` statements go out right behind the COMMIT and are answered in the same round trip,
   * and it sees what this one committed (nothing of it when the COMMIT answers ROLLBACK). The
   * connection is not given back to the pool between the two. Only an outermost `tx` calls it.
   */
  committing?: (next: ChainedTx) => void;
}

/** Starts a transaction on the connection of the one whose COMMIT is in flight (TxOptions.committing). */
export type ChainedTx = <T>(fn: () => Promise<T>, opts?: TxOptions) => Promise<T>;

/**
 * The one data layer: drizzle's query builder plus raw statements, on either engine, always
 * asynchronous. Every call joins the transaction in progress in its async context (`tx`), so
 * a repository never needs to know whether it runs inside one. Repositories are its only users.
 *
 * Rules that keep both engines equal:
 * - await builders (`await db.select()...`, or `.all()`, `.get()`, `.run()`); `.values()` is SQLite-only;
 * - changed-row counts come from `.run()` (`{ changes }`) or `.returning()`;
 * - raw SQL quotes camelCase aliases (`AS "sessionId"`); engine-specific SQL is chosen with `db.engine`.
 */
export interface DB extends QueryBuilder {
  readonly engine: Engine;
  /** A raw statement with `?` placeholders, prepared once and reused. */
  prepare<Row = Record<string, unknown>>(sql: string): Statement<Row>;
  /** Runs statements without parameters (DDL, pragmas); never inside a transaction on PostgreSQL's pool. */
  exec(sql: string): Promise<void>;
  /**
   * THE way to change several rows atomically. `fn`'s statements (and those of everything it
   * awaits in the same async context) run in one transaction; a nested call is a savepoint.
   * Writes are serialised like SQLite's single writer on both engines, so a read-then-write
   * inside `fn` sees no concurrent change. Never await unrelated I/O (a network call) inside.
   */
  tx<T>(fn: () => Promise<T>, opts?: TxOptions): Promise<T>;
  /** True inside `tx` (in this async context). */
  readonly inTx: boolean;
  /** Runs `fn` once the outermost transaction commits (at once outside a transaction); dropped on rollback. */
  afterCommit(fn: () => void): void;
  /** PostgreSQL only: what the store sent so far (a copy; subtract two to measure). */
  readonly counts?: StoreCounts;
  /** Closes the connection(s): after the services stopped. */
  close(): Promise<void>;
}

/**
 * Rewrites `?` placeholders (outside quotes and comments) to PostgreSQL's `$1, $2, …`; SQLite's
 * numbered `?3` becomes `$3`.
 */
export function numberedPlaceholders(sql: string): string {
  let out = "";
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closing(sql, i, c);
      out += sql.slice(i, end + 1);
      i = end;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end < 0 ? sql.length - 1 : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === "?") {
      const digits = /^\d+/.exec(sql.slice(i + 1))?.[0];
      if (digits) {
        out += `$${digits}`;
        i += digits.length;
      } else {
        out += `$${++n}`;
      }
    } else {
      out += c;
    }
  }
  return out;
}

function closing(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i++;
      else return i;
    }
  }
  return sql.length - 1;
}
