import { readCache } from "../../db/read-cache.ts";
import { memoSpace } from "../../db/snapshot-memo.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { sessionKeepsGroups } from "../sessions/repo.ts";

/** the sim route's session settings, in the PostgreSQL read cache */
const SIM_SESSIONS = memoSpace();

/**
 * What the sim's inbound route needs of a session of the workspace (404 when there is none):
 * whether it keeps group chats. On PostgreSQL, outside a transaction, through the store's read
 * cache (src/db/read-cache.ts): kept until the chat_sessions table (or another watched table)
 * changes on any node, so a session deleted or its groups setting changed is seen by the next
 * request on this node and within the notification's latency on the others; a session that is
 * not there is never kept. On SQLite (a read is a call into the library) it is read every time,
 * the one column only (the row holds the session's credentials document).
 */
export function sessionGroupsSetting(deps: AppDeps, workspaceId: string, sessionId: string): Promise<{ groups: boolean }> | { groups: boolean } {
  const read = async () => {
    const groups = await sessionKeepsGroups(deps.db, workspaceId, sessionId);
    if (groups === undefined) throw errors.notFound("Session");
    return { groups };
  };
  if (deps.db.engine !== "postgres" || deps.db.inTx) return read();
  return readCache(deps.db).get(SIM_SESSIONS, `${workspaceId}\u0000${sessionId}`, read);
}
