import { SQLiteTable, type sqliteTable as drizzleSqliteTable } from "drizzle-orm/sqlite-core";

// drizzle's own keys of a table (global symbols: the same ones its table.js uses)
const NAME = Symbol.for("drizzle:Name");
const ORIGINAL_NAME = Symbol.for("drizzle:OriginalName");
const SCHEMA = Symbol.for("drizzle:Schema");
const BASE_NAME = Symbol.for("drizzle:BaseName");
const IS_ALIAS = Symbol.for("drizzle:IsAlias");
const IS_DRIZZLE_TABLE = Symbol.for("drizzle:IsDrizzleTable");
const EXTRA_CONFIG_BUILDER = Symbol.for("drizzle:ExtraConfigBuilder");
const COLUMNS = Symbol.for("drizzle:Columns");
const EXTRA_CONFIG_COLUMNS = Symbol.for("drizzle:ExtraConfigColumns");
const INLINE_FOREIGN_KEYS = Symbol.for("drizzle:SQLiteInlineForeignKeys");

interface ColumnBuilder {
  setName(name: string): void;
  build(table: object): object;
  buildForeignKeys(column: object, table: object): object[];
}
type Table = Record<PropertyKey, unknown>;

/** The tables whose columns are not built yet, and how to build them. */
const unbuilt = new WeakMap<object, () => void>();

/**
 * The prototype of a table whose columns are not built yet. Reading anything the table does not
 * have itself (a column, drizzle's list of its columns, a method of SQLiteTable) comes here with
 * the table as receiver: the columns are built, the table goes back on SQLiteTable's prototype,
 * and the read is answered from the table as drizzle built it.
 */
const pendingProto: object = new Proxy(Object.create(SQLiteTable.prototype) as object, {
  get(target, key, receiver) {
    const build = unbuilt.get(receiver as object);
    if (!build) return Reflect.get(target, key, receiver);
    build();
    return Reflect.get(receiver as object, key, receiver);
  },
});

/**
 * drizzle's `sqliteTable`, with the columns built on the table's first use instead of at import.
 * Building the ≈50 tables (≈440 columns: a builder and a column object each, foreign keys) was
 * ≈2 ms of every process start, for tables most commands and a server's start never touch.
 * The object returned is the table itself (its name, schema and drizzle marks set at once, the
 * same object before and after the columns are built), so identity holds for maps keyed by
 * table and for each column's `table`; `columns` is given as a function (drizzle's callback
 * form) so that the column builders are not made at import either. Built, the table is what
 * `sqliteTable` makes: the same properties on SQLiteTable's prototype.
 */
export const sqliteTable = ((name: string, columns: Record<string, unknown> | (() => Record<string, unknown>), extraConfig?: unknown) => {
  const t = Object.create(pendingProto) as Table;
  // the fields drizzle's Table constructor sets, but for the columns' (made by build)
  for (const [key, value] of [
    [NAME, name],
    [ORIGINAL_NAME, name],
    [SCHEMA, undefined],
    [BASE_NAME, name],
    [IS_ALIAS, false],
    [IS_DRIZZLE_TABLE, true],
    [EXTRA_CONFIG_BUILDER, extraConfig],
  ] as const)
    Object.defineProperty(t, key, { value, writable: true, enumerable: true, configurable: true });
  unbuilt.set(t, () => {
    unbuilt.delete(t);
    Object.setPrototypeOf(t, SQLiteTable.prototype);
    const foreignKeys: object[] = [];
    t[INLINE_FOREIGN_KEYS] = foreignKeys;
    // as drizzle's sqliteTableBase: each builder named by its key, built with this table as its parent
    const parsed = (typeof columns === "function" ? columns() : columns) as Record<string, ColumnBuilder>;
    const built = Object.fromEntries(
      Object.entries(parsed).map(([key, builder]) => {
        builder.setName(key);
        const column = builder.build(t);
        foreignKeys.push(...builder.buildForeignKeys(column, t));
        return [key, column];
      }),
    );
    Object.assign(t, built);
    t[COLUMNS] = built;
    t[EXTRA_CONFIG_COLUMNS] = built;
  });
  return t;
}) as unknown as typeof drizzleSqliteTable;
