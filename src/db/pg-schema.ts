import { is, SQL } from "drizzle-orm";
import {
  bigint,
  doublePrecision,
  foreignKey,
  index,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  type PgColumnBuilderBase,
  type PgTableWithColumns,
} from "drizzle-orm/pg-core";
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * The PostgreSQL twin of a table declared once with drizzle's SQLite column types: what
 * drizzle-kit generates the PostgreSQL migrations from (see src/schema/schema-tables.ts). Integers become
 * `bigint` (times are milliseconds), booleans stay 0/1 integers and JSON stays text, so a row
 * reads the same on both engines; keys, unique and partial indexes, and foreign keys with
 * their ON DELETE carry over.
 */
export function pgTwin(table: SQLiteTable, twins: Map<SQLiteTable, PgTableWithColumns<any>>): PgTableWithColumns<any> {
  const cfg = getTableConfig(table);
  const columns: Record<string, PgColumnBuilderBase> = {};
  for (const col of cfg.columns) columns[col.name] = pgColumn(col);
  const twin = pgTable(cfg.name, columns, (t) => {
    const c = (col: SQLiteColumn) => t[col.name]!;
    const extras: unknown[] = [];
    for (const pk of cfg.primaryKeys) extras.push(primaryKey({ columns: pk.columns.map(c) as [any, ...any[]] }));
    for (const u of cfg.uniqueConstraints) extras.push(unique(u.name).on(...(u.columns.map(c) as [any, ...any[]])));
    for (const ix of cfg.indexes) {
      const { name, columns: on, unique: isUnique, where } = ix.config;
      const cols = on.map((x) => {
        if (is(x, SQL)) return x;
        return c(x as SQLiteColumn);
      }) as [any, ...any[]];
      let built = (isUnique ? uniqueIndex(name) : index(name)).on(...cols);
      if (where) built = built.where(where) as typeof built;
      extras.push(built);
    }
    for (const fk of cfg.foreignKeys) {
      const ref = fk.reference();
      const foreign = twins.get(ref.foreignTable);
      if (!foreign) throw new Error(`${cfg.name}: the table it references must be converted first`);
      let built = foreignKey({ name: fk.getName(), columns: ref.columns.map(c) as [any, ...any[]], foreignColumns: ref.foreignColumns.map((fc) => foreign[fc.name]) as [any, ...any[]] });
      if (fk.onDelete) built = built.onDelete(fk.onDelete);
      if (fk.onUpdate) built = built.onUpdate(fk.onUpdate);
      extras.push(built);
    }
    return extras as never;
  });
  twins.set(table, twin);
  return twin;
}

function pgColumn(col: SQLiteColumn): PgColumnBuilderBase {
  let b: any;
  switch (col.getSQLType()) {
    case "integer":
      b = bigint(col.name, { mode: "number" });
      break;
    case "real":
      b = doublePrecision(col.name);
      break;
    case "text":
      b = text(col.name);
      break;
    default:
      throw new Error(`column ${col.name}: no PostgreSQL type for SQLite ${col.getSQLType()}`);
  }
  if (col.primary) b = b.primaryKey();
  if (col.notNull && !col.primary) b = b.notNull();
  if (col.isUnique) b = b.unique(col.uniqueName);
  if (col.hasDefault && col.default !== undefined) {
    const d = col.default;
    b = b.default(is(d, SQL) ? d : typeof d === "boolean" ? (d ? 1 : 0) : typeof d === "object" && d !== null ? JSON.stringify(d) : d);
  }
  return b;
}
