import { migrate } from "../../src/db/migrate.ts";
import { openStore } from "../../src/db/open.ts";
import type { DB } from "../../src/db/store.ts";
import { openSqliteStore } from "../../src/db/sqlite.ts";
import { freshPostgres, testEngine } from "./postgres.ts";

/**
 * A migrated store of the engine the suite runs on, without an app: in-memory SQLite, or a
 * PostgreSQL database of its own. `close()` closes it (and drops the PostgreSQL database).
 */
export async function openTestStore(): Promise<{ db: DB; close(): Promise<void> }> {
  if (testEngine === "postgres") {
    const pg = await freshPostgres();
    const db = openStore({ dataDir: "", databaseUrl: pg.url });
    return {
      db,
      async close() {
        await db.close();
        await pg.drop();
      },
    };
  }
  const db = openStore({ dataDir: "" }, { path: ":memory:" });
  await migrate(db);
  return { db, close: () => db.close() };
}

/** A SQLite store on a file (or ":memory:") with its bun:sqlite connection, for tests of SQLite's own machinery. */
export function openSqliteFile(path: string, opts: { synchronous?: "normal" | "full" } = {}): { db: DB; sqlite: import("bun:sqlite").Database; close(): Promise<void> } {
  const { db, sqlite } = openSqliteStore(path, opts);
  return { db, sqlite, close: () => db.close() };
}
