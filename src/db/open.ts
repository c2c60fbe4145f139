import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "./sqlite.ts";
import type { DB } from "./store.ts";

export type { DB } from "./store.ts";

export interface StoreConfig {
  dataDir: string;
  databaseUrl?: string;
  databasePoolSize?: number;
  dbSynchronous?: "normal" | "full";
}

/**
 * Opens the store the configuration names: PostgreSQL when `databaseUrl` is set, else SQLite
 * at `<dataDir>/parley.db` (or `path`, e.g. ":memory:" in tests). Nothing is migrated here.
 * `readonly` (SQLite): a connection that reads beside a live server and writes nothing.
 */
export function openStore(config: StoreConfig, opts: { path?: string; onError?: (err: unknown) => void; readonly?: boolean } = {}): DB {
  if (config.databaseUrl) {
    // required here, not imported above: PostgreSQL's client and drizzle's pg-core stay unloaded on SQLite (memory, start-up)
    const { openPostgresStore } = require("./postgres.ts") as typeof import("./postgres.ts");
    return openPostgresStore(config.databaseUrl, { max: config.databasePoolSize, onError: opts.onError }).db;
  }
  const path = opts.path ?? join(config.dataDir, "parley.db");
  if (path !== ":memory:") mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  return openSqliteStore(path, { synchronous: config.dbSynchronous, onError: opts.onError, readonly: opts.readonly }).db;
}

/** Where the data lives, for logs and errors: the SQLite file, or the PostgreSQL URL without its password. */
export function describeStore(config: StoreConfig): string {
  if (!config.databaseUrl) return join(config.dataDir, "parley.db");
  try {
    const u = new URL(config.databaseUrl);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres";
  }
}
