import type { AuthContext } from "../../http/auth-guard.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { MemberView } from "./model.ts";
import { deleteMember, findMember, listMembers, setRole, type MemberRow } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "sqlite" | "clock">;
type AssignableRole = "admin" | "agent" | "viewer";

/** A member as the API shows it. */
export function memberView(m: MemberRow): MemberView {
  return { id: m.id, email: m.email, name: m.name, role: m.role, twoFactorEnabled: m.twoFactorEnabled, createdAt: new Date(m.createdAt).toISOString() };
}

/** Members of the workspace, owner first. */
export function listTeam(deps: Deps, workspaceId: string, page: number, limit: number): { items: MemberView[]; total: number } {
  const { rows, total } = listMembers(deps.db, workspaceId, page, limit);
  return { items: rows.map(memberView), total };
}

function member(deps: Deps, workspaceId: string, userId: string): MemberRow {
  const m = findMember(deps.db, workspaceId, userId);
  if (!m) throw errors.notFound("Member");
  return m;
}

/** Changes a member's role (docs/team-and-billing.md); the owner's role only moves by transfer. */
export function changeRole(deps: Deps, workspaceId: string, userId: string, role: AssignableRole): MemberView {
  return deps.sqlite.transaction(() => {
    const m = member(deps, workspaceId, userId);
    if (m.role === "owner") throw errors.conflict("The owner cannot be demoted; transfer ownership first");
    setRole(deps.db, workspaceId, userId, role, deps.clock.now().getTime());
    return memberView({ ...m, role });
  })();
}

/** Removes a member; the owner cannot be removed. Their tokens stop working at once. */
export function removeMember(deps: Deps, workspaceId: string, userId: string): void {
  deps.sqlite.transaction(() => {
    const m = member(deps, workspaceId, userId);
    if (m.role === "owner") throw errors.conflict("The owner cannot be removed; transfer ownership first");
    deleteMember(deps.db, workspaceId, userId);
  })();
}

/** Makes another member the owner; the previous owner becomes an admin. Owner only. */
export function transferOwnership(deps: Deps, auth: AuthContext, toUserId: string): { owner: MemberView; previousOwner: MemberView } {
  if (auth.kind !== "user" || auth.role !== "owner") throw errors.forbidden("Only the owner can transfer ownership");
  return deps.sqlite.transaction(() => {
    const target = member(deps, auth.workspaceId, toUserId);
    if (target.id === auth.userId) throw errors.conflict("You already own this workspace");
    const me = member(deps, auth.workspaceId, auth.userId);
    const now = deps.clock.now().getTime();
    setRole(deps.db, auth.workspaceId, me.id, "admin", now);
    setRole(deps.db, auth.workspaceId, target.id, "owner", now);
    return { owner: memberView({ ...target, role: "owner" }), previousOwner: memberView({ ...me, role: "admin" }) };
  })();
}
