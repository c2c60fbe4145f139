import { and, eq } from "drizzle-orm";
import type { AppDeps } from "../../deps.ts";
import { chatSessions } from "../sessions/table.ts";

/**
 * How long a session's queue waits after the network said the account is restricted (463):
 * every further send to a new chat would count against it. Long enough for the usual
 * restriction to lift; the operator can clear it earlier (docs/network-drivers.md).
 */
export const RESTRICTION_PAUSE_MS = 6 * 3_600_000;

/**
 * Pauses a session's outbound queue until `until` (a later pause wins over an earlier one).
 * Row-backed: survives a restart. The comparison and the write are one transaction.
 */
export async function pauseSending(deps: Pick<AppDeps, "db">, workspaceId: string, sessionId: string, until: number, reason: string): Promise<void> {
  await deps.db.tx(async () => {
    const row = await sendPause(deps, workspaceId, sessionId);
    if (row && (row.until ?? 0) >= until) return;
    await deps.db
      .update(chatSessions)
      .set({ sendPausedUntil: until, sendPauseReason: reason })
      .where(and(eq(chatSessions.workspaceId, workspaceId), eq(chatSessions.id, sessionId)))
      .run();
  });
}

/** Lifts a pause now. */
export async function resumeSending(deps: Pick<AppDeps, "db">, workspaceId: string, sessionId: string): Promise<void> {
  await deps.db
    .update(chatSessions)
    .set({ sendPausedUntil: null, sendPauseReason: null })
    .where(and(eq(chatSessions.workspaceId, workspaceId), eq(chatSessions.id, sessionId)))
    .run();
}

/** The pause of a session's queue, if any (`until` may be in the past: then it is over). (The sender reads it with the session: repo.ts findSession.) */
export async function sendPause(deps: Pick<AppDeps, "db">, workspaceId: string, sessionId: string): Promise<{ until: number | null; reason: string | null } | undefined> {
  return deps.db
    .prepare<{ until: number | null; reason: string | null }>("SELECT send_paused_until AS until, send_pause_reason AS reason FROM chat_sessions WHERE workspace_id = ? AND id = ?")
    .get(workspaceId, sessionId);
}
