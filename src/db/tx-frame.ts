/**
 * The bookkeeping of one transaction, shared by both engines: the callbacks to run after the
 * outermost commit, with a mark per savepoint so a savepoint rolled back drops its own.
 */
export class TxFrame<Conn> {
  depth = 0;
  /** false once the transaction ended: a context spawned inside it that outlives it runs outside */
  open = true;
  private after: (() => void)[] = [];

  constructor(
    /** the connection the transaction holds (PostgreSQL) or the engine's (SQLite) */
    readonly conn: Conn,
    private onError: (err: unknown) => void,
  ) {}

  afterCommit(fn: () => void): void {
    this.after.push(fn);
  }

  /** The transaction rolled back: nothing runs. */
  abandoned(): void {
    this.open = false;
    this.after.length = 0;
  }

  /** Where a savepoint starts: its callbacks are those pushed after this mark. */
  mark(): number {
    return this.after.length;
  }

  /** A savepoint rolled back: its callbacks go with it. */
  dropFrom(mark: number): void {
    this.after.length = mark;
  }

  /** After the outermost commit: every callback, in order; one failing does not stop the others. */
  committed(): void {
    this.open = false;
    for (const fn of this.after.splice(0)) {
      try {
        fn();
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
