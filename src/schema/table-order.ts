import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import * as schema from "./schema-tables.ts";

/** A table as a copy sees it: its name, its columns in declaration order, the tables it references. */
export interface TableShape {
  name: string;
  columns: string[];
  parents: string[];
}

/**
 * Every table of the schema (schema-tables.ts: one line per table.ts table), parents before the
 * tables whose foreign keys point at them, so rows can be inserted in this order with every
 * foreign key checked. Ties keep the schema's order. Throws on a cycle (it has none).
 */
export function tablesInForeignKeyOrder(): TableShape[] {
  const shapes = new Map<string, TableShape>();
  for (const value of Object.values(schema)) {
    if (!is(value, PgTable)) continue;
    const cfg = getTableConfig(value);
    const parents = cfg.foreignKeys.map((fk) => getTableConfig(fk.reference().foreignTable).name).filter((p) => p !== cfg.name);
    shapes.set(cfg.name, { name: cfg.name, columns: cfg.columns.map((c) => c.name), parents: [...new Set(parents)] });
  }
  const ordered: TableShape[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string, path: string[]) => {
    const seen = state.get(name);
    if (seen === "done") return;
    if (seen === "visiting") throw new Error(`foreign keys form a cycle: ${[...path, name].join(" -> ")}`);
    const shape = shapes.get(name);
    if (!shape) throw new Error(`${path.at(-1)} references ${name}, which is not in schema-tables.ts`);
    state.set(name, "visiting");
    for (const parent of shape.parents) visit(parent, [...path, name]);
    state.set(name, "done");
    ordered.push(shape);
  };
  for (const name of shapes.keys()) visit(name, []);
  return ordered;
}
