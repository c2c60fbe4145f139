import type { DB } from "./store.ts";
import { describeStore, type StoreConfig } from "./open.ts";

/** The store's server did not answer its first statement in time. */
export class StoreUnreachableError extends Error {}

/** How long the first statement may take: the URL's `connect_timeout` (seconds, as libpq reads it), else 30 s. */
export function firstAnswerDeadlineMs(url: string): number {
  try {
    const s = Number(new URL(url).searchParams.get("connect_timeout"));
    if (Number.isFinite(s) && s > 0) return s * 1000;
  } catch {
    // not a URL the WHATWG parser takes: the client reports it
  }
  return 30_000;
}

/**
 * Checks that a PostgreSQL store answers before anything is built on it. A host that accepts the
 * connection and closes it (a wrong port, a proxy without its server behind it) makes
 * postgres.js reconnect without end while the first statement waits, whatever its
 * `connect_timeout`: a start would hang with nothing said. SQLite has nothing to check.
 */
export async function assertReachable(db: DB, config: StoreConfig): Promise<void> {
  if (db.engine !== "postgres" || !config.databaseUrl) return;
  const ms = firstAnswerDeadlineMs(config.databaseUrl);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnreachableError(`PostgreSQL at ${describeStore(config)} did not answer within ${ms / 1000} s: is that host and port a PostgreSQL server, and is it up?`)),
      ms,
    );
  });
  try {
    await Promise.race([db.prepare("SELECT 1 AS one").get(), late]);
  } finally {
    clearTimeout(timer);
  }
}
