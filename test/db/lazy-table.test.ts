import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { eq, getTableColumns, is } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { getTableConfig, index, integer, primaryKey, SQLiteTable, sqliteTable as drizzleTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../src/db/lazy-table.ts";
import { workspaces } from "../../src/modules/workspaces/table.ts";
import { messages } from "../../src/modules/messages/table.ts";

// one table of every kind of declaration the modules use, declared both ways
const parentEager = drizzleTable("parent", { id: text("id").primaryKey() });
const parentLazy = sqliteTable("parent", () => ({ id: text("id").primaryKey() }));
const childColumns = (parent: typeof parentEager) => ({
  id: text("id").notNull(),
  parentId: text("parent_id")
    .notNull()
    .references(() => parent.id, { onDelete: "cascade" }),
  kind: text("kind", { enum: ["a", "b"] }).notNull(),
  n: integer("n").notNull().default(0),
  at: integer("at"),
});
const childExtra = (t: { id: unknown; parentId: never; kind: never; n: never }) => [
  primaryKey({ columns: [t.parentId, t.kind] }),
  index("child_n").on(t.n),
  uniqueIndex("child_id").on(t.id as never),
];
const childEager = drizzleTable("child", childColumns(parentEager), childExtra as never);
const childLazy = sqliteTable("child", () => childColumns(parentLazy), childExtra as never);

/** A table's configuration as plain data (drizzle's objects hold their table: compared by name). */
function described(t: SQLiteTable) {
  const cfg = getTableConfig(t);
  return {
    name: cfg.name,
    columns: cfg.columns.map((c) => ({ name: c.name, type: c.getSQLType(), notNull: c.notNull, primary: c.primary, default: c.default, enum: c.enumValues, table: c.table === t })),
    foreignKeys: cfg.foreignKeys.map((f) => ({ name: f.getName(), onDelete: f.onDelete, ref: f.reference().foreignColumns.map((c) => c.name) })),
    indexes: cfg.indexes.map((i) => ({ name: i.config.name, unique: i.config.unique, on: i.config.columns.map((c) => (c as { name: string }).name) })),
    primaryKeys: cfg.primaryKeys.map((p) => p.columns.map((c) => c.name)),
  };
}

describe("lazy tables", () => {
  test("build no column until first used, then the same table drizzle builds", () => {
    const t = sqliteTable("later", () => ({ id: text("id").primaryKey(), at: integer("at") }));
    expect(Object.keys(t)).toEqual([]);
    expect(is(t, SQLiteTable)).toBe(true);
    expect(t instanceof SQLiteTable).toBe(true);
    const id = t.id;
    expect(Object.getPrototypeOf(t)).toBe(SQLiteTable.prototype);
    expect(Object.keys(t)).toEqual(["id", "at"]);
    expect(id.table).toBe(t);
    expect(getTableColumns(t)).toEqual({ id: t.id, at: t.at });
  });

  test("the configuration drizzle-kit reads is the eager table's", () => {
    expect(described(childLazy)).toEqual(described(childEager));
    expect(described(parentLazy)).toEqual(described(parentEager));
  });

  test("queries are the same SQL and read the same rows", () => {
    const sqlite = new Database(":memory:");
    sqlite.exec("CREATE TABLE parent (id TEXT PRIMARY KEY); CREATE TABLE child (id TEXT NOT NULL, parent_id TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, at INTEGER)");
    const db = drizzle(sqlite);
    const queries = (p: typeof parentEager, c: typeof childEager) => [
      db.insert(c).values({ id: "x", parentId: "p", kind: "a" }).toSQL(),
      db.select().from(c).innerJoin(p, eq(p.id, c.parentId)).where(eq(c.kind, "a")).toSQL(),
      db.update(c).set({ n: 2 }).where(eq(c.id, "x")).returning().toSQL(),
    ];
    expect(queries(parentLazy, childLazy)).toEqual(queries(parentEager, childEager));
    db.insert(parentLazy).values({ id: "p" }).run();
    db.insert(childLazy).values({ id: "x", parentId: "p", kind: "b", at: 5 }).run();
    expect(db.select().from(childLazy).all()).toEqual(db.select().from(childEager).all());
    expect(db.select().from(childLazy).all()).toEqual([{ id: "x", parentId: "p", kind: "b", n: 0, at: 5 }]);
  });

  test("the modules' tables are real drizzle tables", () => {
    for (const t of [workspaces, messages]) {
      expect(is(t, SQLiteTable)).toBe(true);
      expect(getTableConfig(t).columns.length).toBeGreaterThan(5);
      expect(Object.getPrototypeOf(t)).toBe(SQLiteTable.prototype);
    }
    expect(getTableConfig(messages).foreignKeys[0]!.reference().foreignTable).toBe(workspaces);
  });

  test("every table of src is declared lazily (the helper aside)", () => {
    const root = join(import.meta.dir, "../../src");
    const eager = [...new Glob("**/*.ts").scanSync(root)].filter((f) => f !== "db/lazy-table.ts" && /import \{[^}]*\bsqliteTable\b[^}]*\} from "drizzle-orm\/sqlite-core"/.test(readFileSync(join(root, f), "utf8")));
    expect(eager).toEqual([]);
  });
});
