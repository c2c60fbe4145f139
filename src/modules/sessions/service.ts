import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { assertQuota } from "../billing/quota.ts";
import type { SessionManager } from "./manager.ts";
import { sessionView, type SessionView } from "./model.ts";
import { liveLinks } from "./lease-repo.ts";
import { countSessions, findSessionByName, getSession, insertSession, listSessionStatuses, listSessions, updateSession, type SessionRow } from "./repo.ts";

/** Creates a disconnected session (docs/sessions.md); the plan limit is checked in the same transaction as the insert. */
export async function createSession(deps: AppDeps, workspaceId: string, name: string): Promise<SessionView> {
  const id = Bun.randomUUIDv7();
  const now = deps.clock.now().getTime();
  await deps.db.tx(async () => {
    await assertQuota(deps, workspaceId, "sessions", await countSessions(deps.db, workspaceId));
    if (await findSessionByName(deps.db, workspaceId, name)) throw errors.conflict(`A session named "${name}" already exists`);
    await insertSession(deps.db, workspaceId, { id, name, status: "disconnected", createdAt: now, updatedAt: now });
  });
  return sessionOf(deps, workspaceId, id);
}

/** The rows as the API shows them, each with whether its link is open now (on any node). */
async function views(deps: AppDeps, rows: SessionRow[]): Promise<SessionView[]> {
  const connected = rows.filter((r) => r.status === "connected").map((r) => r.id);
  const live = await liveLinks(deps.db, connected, deps.clock.now().getTime());
  return rows.map((r) => sessionView(r, live.has(r.id)));
}

/** One page of the workspace's sessions. */
export async function pageOfSessions(deps: AppDeps, workspaceId: string, page: number, limit: number): Promise<{ data: SessionView[]; total: number }> {
  const { rows, total } = await listSessions(deps.db, workspaceId, page, limit);
  return { data: await views(deps, rows), total };
}

/** A session of the workspace, or 404. */
export async function sessionOf(deps: AppDeps, workspaceId: string, id: string): Promise<SessionView> {
  const row = await getSession(deps.db, workspaceId, id);
  if (!row) throw errors.notFound("Session");
  return (await views(deps, [row]))[0]!;
}

export { SESSION_STATUS_TABLES } from "./repo.ts";

/** A session row of the workspace, or 404, without its link state (a read of the leases): for callers that need only the row. */
export async function sessionRowOf(deps: AppDeps, workspaceId: string, id: string): Promise<SessionRow> {
  const row = await getSession(deps.db, workspaceId, id);
  if (!row) throw errors.notFound("Session");
  return row;
}

/** The API-key listing: id and status of every session. */
export async function sessionStatuses(deps: AppDeps, workspaceId: string): Promise<{ id: string; name: string; status: string; phoneNumber: string | null }[]> {
  return listSessionStatuses(deps.db, workspaceId);
}

/** DELETE (docs/sessions.md): a live session is disconnected (unlinked) first, then the row goes (see SessionManager.remove). */
export async function removeSession(manager: SessionManager, workspaceId: string, id: string): Promise<void> {
  await manager.remove(workspaceId, id);
}

/** PATCH: changes the session's settings (docs/groups.md); a setting left out keeps its value. */
export async function patchSettings(deps: AppDeps, workspaceId: string, id: string, settings: { groups?: boolean }): Promise<SessionView> {
  await deps.db.tx(async () => {
    if (!(await getSession(deps.db, workspaceId, id))) throw errors.notFound("Session");
    if (settings.groups !== undefined) await updateSession(deps.db, workspaceId, id, { groups: settings.groups, updatedAt: deps.clock.now().getTime() });
  });
  // the live connection follows at once (a driver may skip group chats entirely while it is off)
  if (settings.groups !== undefined) deps.network.setGroups?.(id, settings.groups);
  return sessionOf(deps, workspaceId, id);
}
