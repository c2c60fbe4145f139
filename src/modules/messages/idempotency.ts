import { and, eq, lt, sql } from "drizzle-orm";
import { preparedOnce } from "../../db/prepared.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { idempotencyKeys } from "./table.ts";

const TTL_MS = 24 * 3600_000;

/** A stored first answer to an `Idempotency-Key`. */
export interface StoredAnswer {
  statusCode: number;
  data: unknown;
}

/** SHA-256 of what makes two requests "the same": route and body. */
export function requestHash(route: string, body: unknown): string {
  return new Bun.CryptoHasher("sha256").update(route).update("\n").update(JSON.stringify(body)).digest("hex");
}

const p = <T>(name: string) => sql.placeholder(name) as unknown as T;
// prepared once: a send with an Idempotency-Key runs all three
const stmts = preparedOnce((db) => ({
  find: db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.workspaceId, p("ws")), eq(idempotencyKeys.key, p("key"))))
    .prepare(),
  dropExpired: db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.workspaceId, p("ws")), eq(idempotencyKeys.key, p("key")), sql`${idempotencyKeys.expiresAt} <= ${sql.placeholder("now")}`))
    .prepare(),
  insert: db
    .insert(idempotencyKeys)
    .values({
      workspaceId: p("ws"),
      key: p("key"),
      requestHash: p("hash"),
      statusCode: p("statusCode"),
      response: p("response"),
      createdAt: p("now"),
      expiresAt: p("expiresAt"),
    })
    .prepare(),
}));

/**
 * The first answer under `key` in the last 24 h, or null. The same key with another
 * request body is a client bug: 409 CONFLICT.
 */
export async function replay(deps: Pick<AppDeps, "db" | "clock">, workspaceId: string, key: string, hash: string): Promise<StoredAnswer | null> {
  const row = await stmts(deps.db).find.get({ ws: workspaceId, key });
  if (!row || row.expiresAt <= deps.clock.now().getTime()) return null;
  if (row.requestHash !== hash) throw errors.conflict("This Idempotency-Key was already used with a different request body");
  return { statusCode: row.statusCode, data: JSON.parse(row.response) };
}

/** Stores the first answer; call in the transaction of the change. Replaces an expired entry. */
export async function remember(deps: Pick<AppDeps, "db" | "clock">, workspaceId: string, key: string, hash: string, answer: StoredAnswer): Promise<void> {
  const now = deps.clock.now().getTime();
  const s = stmts(deps.db);
  await s.dropExpired.run({ ws: workspaceId, key, now });
  // a concurrent first request that committed meanwhile makes this insert fail: the caller replays it
  await s.insert.run({ ws: workspaceId, key, hash, statusCode: answer.statusCode, response: JSON.stringify(answer.data), now, expiresAt: now + TTL_MS });
}

/** Deletes expired keys (periodic). */
export async function pruneIdempotencyKeys(deps: Pick<AppDeps, "db" | "clock">): Promise<number> {
  return (await deps.db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, deps.clock.now().getTime())).run()).changes;
}
