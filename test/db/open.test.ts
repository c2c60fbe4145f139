import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundledMigrationCount, migrate } from "../../src/db/migrate.ts";
import { openDb } from "../../src/db/open.ts";

test("a file database opens with WAL, NORMAL sync, foreign keys and a busy timeout", () => {
  const path = join(mkdtempSync(join(tmpdir(), "parley-db-")), "p.db");
  const o = openDb(path);
  const get = (p: string) => Object.values(o.sqlite.query(`PRAGMA ${p}`).get() as object)[0];
  expect(get("journal_mode")).toBe("wal");
  expect(get("synchronous")).toBe(1); // NORMAL
  expect(get("foreign_keys")).toBe(1);
  expect(get("busy_timeout")).toBe(5000);
  o.close();
  const full = openDb(path, { synchronous: "full" });
  expect(Object.values(full.sqlite.query("PRAGMA synchronous").get() as object)[0]).toBe(2);
  full.close();
});

test("migrations apply once and are idempotent", () => {
  const o = openDb(":memory:");
  expect(migrate(o.db)).toBe(bundledMigrationCount());
  expect(migrate(o.db)).toBe(0);
  const tables = o.sqlite.query("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[];
  expect(tables.map((t) => t.name)).toContain("jobs");
  o.close();
});
