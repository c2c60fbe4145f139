import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { assertQuota } from "../billing/quota.ts";
import type { SessionManager } from "./manager.ts";
import { sessionView, type SessionView } from "./model.ts";
import { countSessions, findSessionByName, getSession, insertSession, listSessionStatuses, listSessions } from "./repo.ts";

/** Creates a disconnected session (docs/sessions.md); the plan limit is checked in the same transaction as the insert. */
export function createSession(deps: AppDeps, workspaceId: string, name: string): SessionView {
  const id = Bun.randomUUIDv7();
  const now = deps.clock.now().getTime();
  deps.bus.transaction(() => {
    assertQuota(deps, workspaceId, "sessions", countSessions(deps.db, workspaceId));
    if (findSessionByName(deps.db, workspaceId, name)) throw errors.conflict(`A session named "${name}" already exists`);
    insertSession(deps.db, workspaceId, { id, name, status: "disconnected", createdAt: now, updatedAt: now });
  });
  return sessionView(getSession(deps.db, workspaceId, id)!);
}

/** One page of the workspace's sessions. */
export function pageOfSessions(deps: AppDeps, workspaceId: string, page: number, limit: number): { data: SessionView[]; total: number } {
  const { rows, total } = listSessions(deps.db, workspaceId, page, limit);
  return { data: rows.map(sessionView), total };
}

/** A session of the workspace, or 404. */
export function sessionOf(deps: AppDeps, workspaceId: string, id: string): SessionView {
  const row = getSession(deps.db, workspaceId, id);
  if (!row) throw errors.notFound("Session");
  return sessionView(row);
}

/** The API-key listing: id and status of every session. */
export function sessionStatuses(deps: AppDeps, workspaceId: string): { id: string; name: string; status: string; phoneNumber: string | null }[] {
  return listSessionStatuses(deps.db, workspaceId);
}

/** DELETE (docs/sessions.md): a live session is disconnected (unlinked) first, then the row goes (see SessionManager.remove). */
export async function removeSession(manager: SessionManager, workspaceId: string, id: string): Promise<void> {
  await manager.remove(workspaceId, id);
}
