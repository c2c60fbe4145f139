
/** Called once a write to a watched table is durable: after its statement, or at its transaction's commit. */
export type WriteListener = (table: string, sql: string) => void;

const WRITE = /\b(?:insert\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)"?/gi;

/**
 * The tables a statement writes, by its text (INSERT INTO / UPDATE / DELETE FROM, CTEs
 * included), computed once per distinct text. Used by the PostgreSQL store to tell in-memory
 * caches of other modules that rows they keep may have changed (see read-cache.ts).
 */
export class TableWrites {
  private listeners: { tables: Set<string>; fn: WriteListener }[] = [];
  private watched = new Set<string>();
  private byText = new Map<string, string[]>();

  /** Calls `fn` after every committed write to one of `tables`. */
  watch(tables: readonly string[], fn: WriteListener): void {
    this.listeners.push({ tables: new Set(tables), fn });
    for (const t of tables) this.watched.add(t);
    this.byText.clear();
  }

  /** The watched tables `sql` writes (empty for a read or an unwatched table): cheap after the first call per text. */
  written(sql: string): string[] {
    let tables = this.byText.get(sql);
    if (tables === undefined) {
      tables = [];
      if (this.watched.size > 0) for (const m of sql.matchAll(WRITE)) if (this.watched.has(m[1]!.toLowerCase())) tables.push(m[1]!.toLowerCase());
      if (this.byText.size >= 5_000) this.byText.clear();
      this.byText.set(sql, tables);
    }
    return tables;
  }

  /** Tells the listeners of `tables` (the write is committed). */
  committed(tables: readonly string[], sql: string): void {
    for (const l of this.listeners) for (const t of tables) if (l.tables.has(t)) l.fn(t, sql);
  }
}

const byTableWrites = new WeakMap<object, TableWrites>();
/** The write watch of a store (one per store; only the PostgreSQL store reports to it). */
export function tableWrites(db: object): TableWrites {
  let v = byTableWrites.get(db);
  if (!v) byTableWrites.set(db, (v = new TableWrites()));
  return v;
}
