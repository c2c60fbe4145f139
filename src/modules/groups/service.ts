import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { NetworkError } from "../../network/driver.ts";
import { getSession } from "../sessions/repo.ts";
import { findGroup, storedGroups, upsertGroup, type StoredGroup } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "network" | "log">;

/**
 * The groups a session is in (docs/groups.md). A connected session asks the network and
 * records the answer (the inbox names group conversations from it); any other session
 * answers what Parley last knew. 404 for a session of another workspace.
 */
export async function listSessionGroups(deps: Deps, workspaceId: string, sessionId: string): Promise<StoredGroup[]> {
  const session = await getSession(deps.db, workspaceId, sessionId);
  if (!session) throw errors.notFound("Session");
  if (session.status !== "connected" || !deps.network.listGroups) return storedGroups(deps.db, workspaceId, sessionId);
  let live;
  try {
    live = await deps.network.listGroups(sessionId);
  } catch (err) {
    if (err instanceof NetworkError) throw errors.chatappUnavailable(`The network did not list the session's groups: ${err.message}`);
    throw err;
  }
  const at = deps.clock.now().getTime();
  await deps.db.tx(async () => {
    for (const g of live) await upsertGroup(deps.db, workspaceId, sessionId, g, at);
  });
  return live.map((g) => ({ id: g.id, name: g.name, participants: g.participants }));
}

/**
 * A send to a group: the group must be one the session is in (known to Parley, or on the
 * network's list now), else 404. Call before the send's transaction (it may ask the network).
 */
export async function requireGroup(deps: Deps, workspaceId: string, sessionId: string, groupId: string): Promise<void> {
  if (await findGroup(deps.db, workspaceId, sessionId, groupId)) return;
  const groups = await listSessionGroups(deps, workspaceId, sessionId);
  if (!groups.some((g) => g.id === groupId)) throw errors.notFound("Group");
}
